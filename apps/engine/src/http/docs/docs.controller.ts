// GET /docs (the documentation page) and GET /docs/openapi.json (the OpenAPI 3.1 document),
// both built once at start-up. Public.
import { Controller, Get, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { describeNameMapping } from '../../events-stream/public-event-names';
import type { OpenApiDocument } from '../../api/openapi/openapi-document';
import { apiDocument } from '../api-document';
import { renderDocsPage } from './docs-page';

function send(response: ServerResponse, contentType: string, text: string): void {
  response.statusCode = 200;
  response.setHeader('Content-Type', contentType);
  response.setHeader('Content-Length', Buffer.byteLength(text));
  response.end(text);
}

@Controller('docs')
export class DocsController {
  private readonly documentText: string;
  private readonly page: string;

  constructor() {
    const document: OpenApiDocument = apiDocument();
    this.documentText = JSON.stringify(document, null, 2);
    const mapping = describeNameMapping();
    this.page = renderDocsPage(
      document,
      Object.entries(mapping).map(([name, storeEvents]) => ({ name, storeEvents })),
    );
  }

  @Get()
  docsPage(@Res() response: ServerResponse): void {
    send(response, 'text/html; charset=utf-8', this.page);
  }

  @Get('openapi.json')
  openApi(@Res() response: ServerResponse): void {
    send(response, 'application/json; charset=utf-8', this.documentText);
  }
}
