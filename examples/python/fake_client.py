"""Drive the agent service fake from Python with the standard library only.

    python3 fake_client.py path/to/agent-service-fake.mjs

Starts the fake's single file with `node` (nothing else installed), waits for its
listening line, then creates a response, streams one line by line, lists the
conversation page by page, deletes it, and makes a fault rule cut the next stream
(the request itself carries no fault header). Exits non-zero on any unexpected answer.
"""

import http.client
import json
import subprocess
import sys
import uuid
from urllib.parse import urlsplit

KEY = "sk-fake-a"
AGENT = "agent-a"


class Unexpected(Exception):
    pass


class Fake:
    """The fake as a subprocess, and plain HTTP calls to it."""

    def __init__(self, bundle):
        self.process = subprocess.Popen(
            ["node", bundle, "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise Unexpected(f"the fake did not start: {line!r} {self.process.stderr.read()}")
        url = urlsplit(line[len("listening on "):])
        self.host, self.port = url.hostname, url.port

    def connection(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=10)

    def call(self, method, path, body=None, headers=None):
        connection = self.connection()
        try:
            data = None if body is None else json.dumps(body)
            connection.request(method, path, body=data, headers=headers or {})
            response = connection.getresponse()
            text = response.read().decode()
            return response.status, (json.loads(text) if text else None)
        finally:
            connection.close()

    def stop(self):
        self.process.terminate()
        try:
            _, stderr = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate()
        return stderr


def api_headers(idempotency_key=None, stream=False):
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    if stream:
        headers["Accept"] = "text/event-stream"
    return headers


def expect(condition, message):
    if not condition:
        raise Unexpected(message)


def stream(fake, message, conversation_id=None):
    """Streams one answer, printing each delta as it arrives; returns (text, completed)."""
    body = {"message": message}
    if conversation_id is not None:
        body["conversation_id"] = conversation_id
    connection = fake.connection()
    try:
        connection.request("POST", f"/v1/agents/{AGENT}/responses/stream", body=json.dumps(body),
                           headers=api_headers(str(uuid.uuid4()), stream=True))
        response = connection.getresponse()
        expect(response.status == 200, f"stream answered {response.status}")
        expect(response.getheader("Content-Type", "").startswith("text/event-stream"), "stream is not an event stream")
        text, event, data = "", None, []
        while True:
            try:
                raw = response.readline()
            except (http.client.IncompleteRead, ConnectionError):
                return text, False
            if not raw:
                return text, False  # the connection ended before a terminal event
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[len("event:"):].strip()
            elif line.startswith("data:"):
                data.append(line[len("data:"):].strip())
            elif line == "" and data:
                payload = json.loads("\n".join(data))
                if payload["type"] == "response.output_text.delta":
                    print(f"  delta: {payload['delta']!r}", flush=True)
                    text += payload["delta"]
                elif payload["type"] == "response.completed":
                    expect(payload["response"]["output_text"] == text, "the deltas do not make up the final text")
                    return text, True
                elif payload["type"] == "error":
                    return text, False
                event, data = None, []
    finally:
        connection.close()


def main(bundle):
    fake = Fake(bundle)
    try:
        status, created = fake.call("POST", f"/v1/agents/{AGENT}/responses",
                                    {"message": "How do reminders work?"}, api_headers(str(uuid.uuid4())))
        expect(status == 200, f"create answered {status}: {created}")
        conversation_id = created["conversation_id"]
        print(f"created: {created['response'][:60]}…")

        text, completed = stream(fake, "And how do I export my data?", conversation_id)
        expect(completed and text, "the stream did not complete")
        print("streamed: completed")

        messages, page = [], 1
        while True:
            status, listed = fake.call("GET", f"/v1/agents/{AGENT}/conversations/{conversation_id}/messages?page={page}&page_size=1",
                                       headers=api_headers())
            expect(status == 200, f"list answered {status}: {listed}")
            messages += listed["items"]
            if not listed["has_more"]:
                break
            page += 1
        expect(len(messages) == listed["total"] == 4, f"listed {len(messages)} of {listed['total']} messages")
        print(f"listed: {len(messages)} messages over {page} pages")

        status, rule = fake.call("POST", "/__fake/faults",
                                 {"match": {"operation": "stream"}, "fault": "drop-after=1", "times": 1})
        expect(status == 201, f"adding the fault rule answered {status}: {rule}")
        text, completed = stream(fake, "What does Pro cost?")
        expect(not completed, "the stream was not cut")
        print(f"fault rule {rule['id']}: stream cut after {text!r}")
        status, rules = fake.call("GET", "/__fake/faults")
        expect(rules["faults"][0]["remaining"] == 0, f"the rule was not counted down: {rules}")

        status, _ = fake.call("DELETE", f"/v1/agents/{AGENT}/conversations/{conversation_id}", headers=api_headers())
        expect(status == 204, f"delete answered {status}")
        status, _ = fake.call("GET", f"/v1/agents/{AGENT}/conversations/{conversation_id}/messages", headers=api_headers())
        expect(status == 404, f"the deleted conversation is still listed: {status}")
        print("deleted: 204, then 404")
    finally:
        summary = fake.stop()
    print(summary.strip())
    expect("client violations: none" in summary, "the fake recorded client violations")
    print("all good")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 fake_client.py path/to/agent-service-fake.mjs")
    try:
        main(sys.argv[1])
    except Unexpected as error:
        sys.exit(f"unexpected: {error}")
