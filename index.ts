/**
 * The package's main entry: the schemas (and their types), the reference fake, the suite's
 * HTTP client and the requirements catalog. The runner is a separate entry
 * ("agent-service-conformance/runner") so that importing a schema never loads vitest.
 */

export * from "./schemas/index.ts";
export {
  createFakeApp,
  createFakeServer,
  DEFAULT_CLIENT_RULE_OPTIONS,
  DEFAULT_KEYS,
  type ClientRuleOptions,
  type ClientViolationFilter,
  type FakeApp,
  type FakeServer,
  type FakeServerOptions,
} from "./fake-server/index.ts";
export {
  createClient,
  createPool,
  type ClientLimits,
  type ClientObserver,
  type ClientOptions,
} from "./suite/http/client.ts";
export { Semaphore } from "./suite/http/concurrency.ts";
export { Redactor } from "./suite/http/redact.ts";
export type {
  CreateOptions,
  HttpResult,
  Identity,
  ListOptions,
  RequestOptions,
  ServiceClient,
  StreamResult,
  Transcript,
} from "./suite/http/types.ts";
export {
  REQUIREMENTS,
  requirementById,
  SERVICE_REQUIREMENTS,
  type Family,
  type Level,
  type Requirement,
} from "./requirements/catalog.ts";
export type {
  ConformanceReport,
  RequirementReport,
  RequirementStatus,
  TestReport,
} from "./suite/report/report-types.ts";
