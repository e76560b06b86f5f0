# A download receiver that reads as iperf3's receiver does: recv_into a buffer of READ_BYTES (128 KiB,
# iperf3's default -l, unless given), nothing else per read. wrk reads 8 KiB at a time with an ioctl(FIONREAD) before each read: on a machine whose
# system calls are dear (a VM with page-table isolation) its read loop, not the server, sets its
# figure. GETs URL over one keep-alive connection for SECONDS, whole answers only,
# and prints {"bytes": n, "seconds": s}. Usage: python3 http-receive.py URL SECONDS [READ_BYTES]
import json
import socket
import sys
import time
import urllib.parse

url = urllib.parse.urlsplit(sys.argv[1])
seconds = float(sys.argv[2])
request = f"GET {url.path}?{url.query} HTTP/1.1\r\nHost: {url.netloc}\r\n\r\n".encode()
buffer = bytearray(int(sys.argv[3]) if len(sys.argv) > 3 else 128 * 1024)
view = memoryview(buffer)
connection = socket.create_connection((url.hostname, url.port))
received = 0
started = time.monotonic()
while time.monotonic() - started < seconds:
    connection.sendall(request)
    head = b""
    while b"\r\n\r\n" not in head:
        count = connection.recv_into(buffer)
        if count == 0:
            sys.exit("the server closed the connection")
        head += bytes(view[:count])
    header, _, body = head.partition(b"\r\n\r\n")
    status = header.split(b" ", 2)[1]
    length = next((int(line.split(b":", 1)[1]) for line in header.split(b"\r\n")[1:] if line.lower().startswith(b"content-length:")), None)
    if status != b"200" or length is None:
        sys.exit(f"expected 200 with a Content-Length, got {header.decode(errors='replace')}")
    left = length - len(body)
    while left > 0:
        count = connection.recv_into(buffer, min(left, len(buffer)))
        if count == 0:
            sys.exit("the server closed the connection mid-body")
        left -= count
    received += length
print(json.dumps({"bytes": received, "seconds": time.monotonic() - started}))
