# Sourced by the store's benchmarks: starts moto's S3 server (tools/store-servers.sh installs it)
# on a free loopback port, makes the bucket `tunespec-bench`, and exports the AWS_* variables
# that point the S3 engine at it; MOTO_PID is the server's process (the caller kills it).
# Needs ROOT (the checkout).
moto_python=${CARGO_TARGET_DIR:-$ROOT/target}/store-servers/moto/bin/python
if [ ! -x "$moto_python" ]; then
    echo "moto's S3 server is missing: run tools/store-servers.sh" >&2
    exit 2
fi
MOTO_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$moto_python" "$ROOT/tools/store-servers/moto_s3.py" "$MOTO_PORT" >/dev/null 2>&1 &
MOTO_PID=$!
for _ in $(seq 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$MOTO_PORT") 2>/dev/null; then break; fi
    sleep 0.05
done
curl -sf -X PUT "http://127.0.0.1:$MOTO_PORT/tunespec-bench" >/dev/null
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$MOTO_PORT" AWS_ALLOW_HTTP=true
