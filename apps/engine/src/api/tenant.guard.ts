// The HTTP edge of tenancy: authenticates the API key of each request to a tenant and an actor,
// refuses writes with a read-only key, reads who the caller acts for (`X-Strata-Actor`, checked:
// at most ON_BEHALF_OF_MAX_LENGTH printable ASCII characters), and hands the principal to
// handlers (`@Principal()`).
import {
  createParamDecorator,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { forbidden, invalidInput, unauthorized } from './problem/api-errors';
import { TenantDirectory, type TenantPrincipal } from '../tenancy/tenant-directory';

const PRINCIPAL = Symbol('strata.principal');

type RequestWithPrincipal = IncomingMessage & { [PRINCIPAL]?: TenantPrincipal };

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request may write (any method but GET, HEAD and OPTIONS). */
export function isWriteRequest(request: IncomingMessage): boolean {
  return !readMethods.has(request.method ?? 'GET');
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The header naming who the caller acts for (the end user behind a service). */
export const ON_BEHALF_OF_HEADER = 'x-strata-actor';
export const ON_BEHALF_OF_MAX_LENGTH = 256;
const PRINTABLE_ASCII = /^[\x20-\x7E]+$/;

/** The `X-Strata-Actor` of the request (absent or blank: none); throws `validation` when unusable. */
export function onBehalfOfOf(request: IncomingMessage): string | undefined {
  const value = header(request, ON_BEHALF_OF_HEADER)?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > ON_BEHALF_OF_MAX_LENGTH || !PRINTABLE_ASCII.test(value)) {
    throw invalidInput('X-Strata-Actor is not valid', [
      {
        path: `header.${ON_BEHALF_OF_HEADER}`,
        message: `must be at most ${ON_BEHALF_OF_MAX_LENGTH} printable ASCII characters (percent-encode others)`,
      },
    ]);
  }
  return value;
}

/**
 * Authenticates a request; throws the `unauthorized` or `forbidden` problem, or `validation` for
 * an unusable `X-Strata-Actor`.
 */
export function principalOf(directory: TenantDirectory, request: IncomingMessage): TenantPrincipal {
  const authentication = directory.authenticate({
    authorization: header(request, 'authorization'),
    apiKey: header(request, 'x-api-key'),
  });
  switch (authentication.kind) {
    case 'authenticated':
      break;
    case 'missing_key':
      throw unauthorized('send an API key as Authorization: Bearer <key> or x-api-key');
    case 'unknown_key':
      throw unauthorized('the API key is not valid');
    case 'conflicting_keys':
      throw unauthorized('Authorization and x-api-key name different keys');
    default: {
      const unhandled: never = authentication;
      throw new Error(`unhandled authentication ${JSON.stringify(unhandled)}`);
    }
  }
  const { principal } = authentication;
  if (principal.access === 'read_only' && isWriteRequest(request)) {
    throw forbidden('this API key is read-only');
  }
  const onBehalfOf = onBehalfOfOf(request);
  return onBehalfOf === undefined ? principal : { ...principal, onBehalfOf };
}

/**
 * Whether the request presents a valid API key (any access), for public routes that tell more to
 * such callers; always true in single-tenant mode, where no key is needed.
 */
export function presentsValidKey(directory: TenantDirectory, request: IncomingMessage): boolean {
  return (
    directory.authenticate({
      authorization: header(request, 'authorization'),
      apiKey: header(request, 'x-api-key'),
    }).kind === 'authenticated'
  );
}

@Injectable()
export class TenantGuard implements CanActivate {
  constructor(@Inject(TenantDirectory) private readonly directory: TenantDirectory) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    request[PRINCIPAL] = principalOf(this.directory, request);
    return true;
  }
}

/** The principal `TenantGuard` authenticated for the request; undefined before it ran. */
export function guardedPrincipalOf(request: IncomingMessage): TenantPrincipal | undefined {
  return (request as RequestWithPrincipal)[PRINCIPAL];
}

/** The authenticated principal of the request (use on routes behind `TenantGuard`). */
export const Principal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TenantPrincipal => {
    const principal = context.switchToHttp().getRequest<RequestWithPrincipal>()[PRINCIPAL];
    if (principal === undefined) throw new Error('route reads the principal without TenantGuard');
    return principal;
  },
);
