#!/usr/bin/env python3
"""An ssh ProxyCommand that adds latency: relays stdin/stdout to HOST:PORT,
holding every chunk DELAY_MS in each direction (an RTT of twice that).
For benches/remote_bench.sh on kernels without netem. Chunks keep their
order and nothing is dropped; throughput is not limited.

    ProxyCommand python3 delay_proxy.py 127.0.0.1 2222 50
"""
import os
import socket
import sys
import threading
import time
import queue


def pump(read, write, delay):
    q = queue.Queue()

    def reader():
        while True:
            data = read()
            q.put((time.monotonic() + delay, data))
            if not data:
                return

    threading.Thread(target=reader, daemon=True).start()
    while True:
        due, data = q.get()
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        if not data:
            write(b"")
            return
        write(data)


def main():
    host, port, delay_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    delay = delay_ms / 1000.0
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def to_stdout(data):
        if not data:
            os.close(1)
            return
        view = memoryview(data)
        while view:
            view = view[os.write(1, view):]

    def to_sock(data):
        if data:
            sock.sendall(data)
        else:
            sock.shutdown(socket.SHUT_WR)

    up = threading.Thread(target=pump, args=(lambda: os.read(0, 65536), to_sock, delay), daemon=True)
    up.start()
    pump(lambda: sock.recv(65536), to_stdout, delay)


if __name__ == "__main__":
    main()
