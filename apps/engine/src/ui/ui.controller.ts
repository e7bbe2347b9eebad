// GET /ui (the audit viewer's page) and GET /ui/assets/<name> (its stylesheet, its bundled module
// and that module's source map), as apps/viewer built them. Public like /docs: the page asks for an
// API key and the API it calls checks it. Responses carry a strict content security policy:
// same-origin scripts, styles and requests only. Before the viewer is built both answer 503
// `unavailable`, saying how to build it.
import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { notFound, unavailable } from '../api/problem/api-errors';
import { UiAssets, VIEWER_BUILD_COMMAND, type UiAsset } from './ui-assets';

export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function send(request: IncomingMessage, response: ServerResponse, asset: UiAsset): void {
  response.setHeader('Content-Security-Policy', UI_CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-cache');
  response.setHeader('ETag', asset.etag);
  if (request.headers['if-none-match'] === asset.etag) {
    response.statusCode = 304;
    response.end();
    return;
  }
  response.statusCode = 200;
  response.setHeader('Content-Type', asset.contentType);
  response.setHeader('Content-Length', asset.body.length);
  response.end(request.method === 'HEAD' ? undefined : asset.body);
}

@Controller('ui')
export class UiController {
  constructor(@Inject(UiAssets) private readonly assets: UiAssets) {}

  @Get()
  page(@Req() request: IncomingMessage, @Res() response: ServerResponse): void {
    const page = this.assets.page();
    if (page === undefined) throw this.notBuilt();
    send(request, response, page);
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): void {
    const found = this.assets.asset(name);
    if (found === undefined && this.assets.missing() !== undefined) throw this.notBuilt();
    if (found === undefined) throw notFound(`the audit viewer has no asset ${JSON.stringify(name)}`);
    send(request, response, found);
  }

  /** Says what to run, not where the engine is installed (the page is public). */
  private notBuilt(): Error {
    return unavailable(`the audit viewer is not built: run \`${VIEWER_BUILD_COMMAND}\``);
  }
}
