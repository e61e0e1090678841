import type { Middleware } from "polka";
import type { FakeRequest } from "../context.ts";
import type { ClientRuleObserver } from "./observer.ts";

const isApiPath = (path: string) => /^\/v1(?:\/|$)/i.test(path);

/** Hands every /v1 request to the observer before anything answers it; the rest pass by. */
export function observeClients(observer: ClientRuleObserver): Middleware<FakeRequest> {
  return (req, res, next) => {
    if (isApiPath(req.path)) observer.arrived(req, res);
    return next();
  };
}
