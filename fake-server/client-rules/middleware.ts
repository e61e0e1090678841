import type { FakeRequest } from "../context.ts";
import type { ServerResponse } from "node:http";
import type { ClientRuleObserver } from "./observer.ts";

const isApiPath = (path: string) => /^\/v1(?:\/|$)/i.test(path);

/** Hands a /v1 request to the observer before anything answers it; the rest pass by. */
export function observeArrival(observer: ClientRuleObserver, req: FakeRequest, res: ServerResponse): void {
  if (isApiPath(req.path)) observer.arrived(req, res);
}
