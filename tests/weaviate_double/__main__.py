"""`python -m tests.weaviate_double`: one double as its own process. It prints one JSON line with its ports
(`{"http_port": ..., "grpc_port": ..., "url": ...}`) once both accept connections, and runs until SIGTERM/SIGINT."""

import json
import signal
import sys
import threading

from tests.weaviate_double.server import start_weaviate_double


def main() -> None:
    double = start_weaviate_double()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    sys.stdout.write(
        json.dumps({"http_port": double.http_port, "grpc_port": double.grpc_port, "url": double.url}) + "\n"
    )
    sys.stdout.flush()
    stop.wait()
    double.stop()


if __name__ == "__main__":
    main()
