/**
 * Helpers for a client project's tests against the fake ("agent-service-conformance/fake/testing").
 * They run on the client's side of the wire, so they live apart from the fake itself.
 */
export { faultInjector, type FaultInjector, type FaultInjectorOptions } from "./fault-injector.ts";
