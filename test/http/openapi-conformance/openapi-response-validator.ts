// Checks one HTTP answer against an OpenAPI 3.1 document: the operation for its method and path
// must exist, its status must be listed (or `default`), its media type must be one the status
// lists, and a JSON body must hold to the schema (JSON Schema 2020-12, ajv). Every schema is
// compiled once, on first use, and kept for the life of the validator.
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export interface ObservedResponse {
  readonly method: string;
  /** The request target as sent: path and query (`/sessions/s1/context?format=llm`). */
  readonly target: string;
  readonly status: number;
  /** The Content-Type header, if any. */
  readonly contentType: string | undefined;
  /** The body as text; undefined when it was not read (a stream). */
  readonly body: string | undefined;
}

interface MediaTypeObject {
  readonly schema?: Record<string, unknown>;
}

interface ResponseObject {
  readonly content?: Readonly<Record<string, MediaTypeObject>>;
}

interface OperationObject {
  readonly operationId?: string;
  readonly responses?: Readonly<Record<string, ResponseObject>>;
}

/** The parts of an OpenAPI 3.1 document the validator reads. */
export interface OpenApiDescription {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}

export interface ValidatorOptions {
  /**
   * How a server answers a method and path the document has no operation for (a route it does
   * not serve): that status, as that JSON media type, with a body of that component. Unset: any
   * such answer is a mismatch.
   */
  readonly unknownRoutes?: {
    readonly status: number;
    readonly mediaType: string;
    readonly component: string;
  };
}

interface Route {
  readonly template: string;
  readonly pattern: RegExp;
  /** Templated segments: a literal path wins over a template (`/sessions/import`). */
  readonly parameters: number;
}

/** The `$id` the document's components are known by, so that response schemas can reach them. */
const DOCUMENT_ID = 'urn:strata:openapi-document';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The media type of a Content-Type header, lower case, without its parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return mediaType === undefined || mediaType === '' ? undefined : mediaType;
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function routeOf(template: string): Route {
  const segments = template
    .split('/')
    .map((segment) =>
      /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return {
    template,
    pattern: new RegExp(`^${segments.join('/')}$`),
    parameters: (template.match(/\{/g) ?? []).length,
  };
}

/** Points the document's local references (`#/components/…`) at the document's `$id`. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')
        ? `${DOCUMENT_ID}${value}`
        : anchored(value),
    ]),
  );
}

function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '(the body)'} ${error.message ?? error.keyword}`)
    .join('; ');
}

export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: readonly Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly document: OpenApiDescription,
    private readonly options: ValidatorOptions = {},
  ) {
    // OpenAPI adds keywords of its own (`discriminator`, `xml`, `example`), which strict mode refuses.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: anchored(document.components ?? {}) });
    this.routes = Object.keys(document.paths)
      .map(routeOf)
      .sort((left, right) => left.parameters - right.parameters);
  }

  /** What is wrong with the answer, or undefined when the document describes it. */
  check(response: ObservedResponse): string | undefined {
    const method = response.method.toLowerCase();
    const path = response.target.split('?')[0] ?? response.target;
    // The most literal path with an operation for the method, as a router picks its handler.
    const route = this.routes.find(
      (candidate) =>
        candidate.pattern.test(path) && this.operationAt(candidate.template, method) !== undefined,
    );
    const operation = route && this.operationAt(route.template, method);
    if (route === undefined || operation === undefined) return this.checkUnknownRoute(response, path);
    const name = `${operation.operationId ?? `${method} ${route.template}`} (${response.method.toUpperCase()} ${path})`;
    const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find(
      (key) => operation.responses?.[key] !== undefined,
    );
    if (statusKey === undefined) {
      return `${name} answered ${response.status}, a status the document does not list (it lists ${Object.keys(operation.responses ?? {}).join(', ')})`;
    }
    const content = operation.responses?.[statusKey]?.content;
    const mediaType = mediaTypeOf(response.contentType);
    if (content === undefined) {
      if (method === 'head' || response.body === undefined || response.body === '') return undefined;
      return `${name} answered ${response.status} with a body (${mediaType ?? 'no content type'}) where the document describes none`;
    }
    const mediaTypeObject = mediaType === undefined ? undefined : content[mediaType];
    if (mediaType === undefined || mediaTypeObject === undefined) {
      return `${name} answered ${response.status} as ${mediaType ?? 'no content type'}, not one the document lists (${Object.keys(content).join(', ')})`;
    }
    if (method === 'head' || response.body === undefined || mediaTypeObject.schema === undefined)
      return undefined;
    let body: unknown = response.body;
    if (isJsonMediaType(mediaType)) {
      try {
        body = JSON.parse(response.body);
      } catch {
        return `${name} answered ${response.status} as ${mediaType} with a body that is not JSON: ${response.body.slice(0, 200)}`;
      }
    }
    const validate = this.validatorOf(mediaTypeObject.schema);
    if (validate(body)) return undefined;
    return `${name} answered ${response.status} with a body the document's schema refuses: ${describeErrors(validate.errors)}`;
  }

  private operationAt(template: string, method: string): OperationObject | undefined {
    if (!HTTP_METHODS.has(method)) return undefined;
    return this.document.paths[template]?.[method] as OperationObject | undefined;
  }

  /**
   * A request for an operation the document lacks passes only as `options.unknownRoutes` says
   * (the engine's 404 problem for a route it does not serve).
   */
  private checkUnknownRoute(response: ObservedResponse, path: string): string | undefined {
    const rule = this.options.unknownRoutes;
    const request = `${response.method.toUpperCase()} ${path}`;
    const mediaType = mediaTypeOf(response.contentType);
    if (rule === undefined || response.status !== rule.status || mediaType !== rule.mediaType) {
      return `${request} answered ${response.status}: the document has no such operation`;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body ?? '');
    } catch {
      return `${request}, an unknown route, answered ${response.status} with a body that is not JSON`;
    }
    const validate = this.validatorOf({ $ref: `#/components/schemas/${rule.component}` });
    if (validate(body)) return undefined;
    return `${request}, an unknown route, answered ${response.status} with a body ${rule.component} refuses: ${describeErrors(validate.errors)}`;
  }

  /** Compiles the schema of every response of every operation now; how many distinct ones there are. */
  compileEverySchema(): number {
    for (const pathItem of Object.values(this.document.paths)) {
      for (const [method, operation] of Object.entries(pathItem)) {
        if (!HTTP_METHODS.has(method)) continue;
        for (const response of Object.values((operation as OperationObject).responses ?? {})) {
          for (const { schema } of Object.values(response.content ?? {})) {
            if (schema === undefined) continue;
            this.validatorOf(schema);
          }
        }
      }
    }
    return this.compiled.size;
  }

  /** One compiled function per distinct schema (most problems share `Problem`). */
  private validatorOf(schema: Record<string, unknown>): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(anchored(schema) as Record<string, unknown>);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
