# One SIGTERM run of axum_server with an SSE client, a slow request and an idle keep-alive
# connection connected; prints when each observable event happened, relative to the SIGTERM.
import os, re, select, signal, socket, subprocess, sys, time
binary = sys.argv[1]
p = subprocess.Popen([binary, "--addr", "127.0.0.1:0", "--grace-ms", "20000", "--ready-delay-ms", "1000"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = p.stderr.readline()
addr = re.search(r"http://(\S+)", line).group(1)
host, port = addr.rsplit(":", 1)
def conn():
    s = socket.create_connection((host, int(port))); return s
def send(s, path):
    s.sendall(f"GET {path} HTTP/1.1\r\nhost: x\r\n\r\n".encode())
idle = conn(); send(idle, "/"); time.sleep(0.1); idle.recv(4096)
sse = conn(); send(sse, "/sse"); sse.recv(4096)
slow = conn(); send(slow, "/slow?ms=3000")
time.sleep(0.3)
t0 = time.monotonic(); os.kill(p.pid, signal.SIGTERM)
events = {}
socks = {"idle keep-alive closed": idle, "sse stream ended": sse, "slow response complete": slow}
bufs = {k: b"" for k in socks}
# readiness probe + new connection during the ready-delay
time.sleep(0.2)
r = conn(); send(r, "/readyz"); resp = r.recv(4096).decode(); r.close()
events["/readyz on a new connection"] = (time.monotonic() - t0, resp.split("\r\n")[0] + " " + resp.rsplit("\r\n", 1)[-1])
refused_at = None
while socks:
    if refused_at is None:
        try:
            c = socket.create_connection((host, int(port)), timeout=0.2); c.close()
        except OSError:
            refused_at = time.monotonic() - t0
    rl, _, _ = select.select(list(socks.values()), [], [], 0.01)
    for k, s in list(socks.items()):
        if s in rl:
            d = s.recv(65536)
            bufs[k] += d
            done = (not d) or (k == "sse stream ended" and bufs[k].endswith(b"0\r\n\r\n")) or (k == "slow response complete" and bufs[k].endswith(b"slow 3000"))
            if done:
                events[k] = (time.monotonic() - t0, "")
                del socks[k]
while p.poll() is None:
    time.sleep(0.001)
exited = time.monotonic() - t0
out, err = p.communicate()
for k, (t, extra) in sorted(events.items(), key=lambda kv: kv[1][0]):
    print(f"{t*1000:8.1f} ms  {k} {extra}")
if refused_at is not None: print(f"{refused_at*1000:8.1f} ms  new connection refused (polled every ~10 ms)")
print(f"{exited*1000:8.1f} ms  exit {p.returncode}")
print("stderr:", *[l for l in err.splitlines() if "phases" in l or "stopping" in l or "not ready" in l], sep="\n  ")
print("stdout last line:", out.strip().splitlines()[-1])
