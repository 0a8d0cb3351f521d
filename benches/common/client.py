"""The script benchmarks' signaltty/1 client: one connection, one call at a time."""
import json
import os
import socket

_sock = socket.socket(socket.AF_UNIX)
_sock.connect(os.environ["XDG_RUNTIME_DIR"] + "/signaltty/signaltty.sock")
_file = _sock.makefile("rw")
_next = 0


def call(method, params):
    """Sends one request and returns its response, skipping event lines."""
    global _next
    _next += 1
    request_id = str(_next)
    _file.write(json.dumps({"protocol": "signaltty/1", "id": request_id,
                            "method": method, "params": params}) + "\n")
    _file.flush()
    while True:
        reply = json.loads(_file.readline())
        if reply.get("id") == request_id:
            return reply
