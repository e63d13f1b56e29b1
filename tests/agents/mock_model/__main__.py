"""A mock model server on 127.0.0.1 for the real-agent harness.

    python3 tests/agents/mock_model --log requests.jsonl [--port 0]

Prints `port N` on its first line of stdout once it listens. Speaks each
wire format an agent program uses (one module each, listed in FORMATS),
logs every request and the reply it chose as one JSON line in --log, and
decides its replies with brain.decide.
"""

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import anthropic  # noqa: E402
import gemini  # noqa: E402
import openai_chat  # noqa: E402
import openai_responses  # noqa: E402

#: Every format's routes: (method, path predicate, handler). A handler
#: takes (path, parsed JSON body or None, headers) and returns a
#: `wire.Response`.
FORMATS = [anthropic, openai_responses, openai_chat, gemini]

LOG_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def handle_any(self, method):
        raw = self.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path = self.path
        response = None
        for fmt in FORMATS:
            for m, matches, handler in fmt.ROUTES:
                if m == method and matches(path):
                    response = handler(path, body, self.headers)
                    break
            if response:
                break
        if response is None:
            response = Response(404, "application/json", json.dumps({"error": "mock: no route"}).encode())
        entry = {"method": method, "path": path, "body": body, "status": response.status}
        if response.decided is not None:
            entry["reply"] = response.decided.to_log()
        with LOG_LOCK, open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        for k, v in response.headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(response.body)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_HEAD(self):
        self.handle_any("HEAD")


from wire import Response  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    Handler.log_path = args.log
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
