"""moto's S3 server on one loopback port, serving one request at a time.

Why not `moto_server`: it serves each request on a thread of its own, and moto checks a
conditional write's precondition and then writes, so two racing writers could both pass the
check. S3 itself makes that check atomic; serving one request at a time gives the tests the same
guarantee (tests/all/store/engines.rs races writers through it).

Usage: moto_s3.py PORT
"""

import sys

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple


def main() -> None:
    port = int(sys.argv[1])
    app = DomainDispatcherApplication(create_backend_app)
    run_simple("127.0.0.1", port, app, threaded=False, processes=1)


if __name__ == "__main__":
    main()
