"""Starting and stopping one double: its REST server and its gRPC server on 127.0.0.1 (each on an ephemeral port),
both in threads of this process, sharing one store."""

import threading
from concurrent import futures
from dataclasses import dataclass

import grpc
from weaviate.proto.v1 import weaviate_pb2_grpc

from tests.weaviate_double.grpc_service import Servicer
from tests.weaviate_double.health import health_handler
from tests.weaviate_double.rest import RestServer
from tests.weaviate_double.storage import Store

HOST = "127.0.0.1"


@dataclass
class WeaviateDouble:
    """A running double: connect with `weaviate.connect_to_custom(http_host=HOST, http_port=.http_port,
    http_secure=False, grpc_host=HOST, grpc_port=.grpc_port, grpc_secure=False)`."""

    http_port: int
    grpc_port: int
    store: Store
    _rest: RestServer
    _rest_thread: threading.Thread
    _grpc: grpc.Server

    host = HOST

    @property
    def url(self) -> str:
        """The REST base URL (http://127.0.0.1:<http_port>)."""
        return f"http://{HOST}:{self.http_port}"

    def stop(self) -> None:
        """Stops both servers and waits for them; the data is gone."""
        self._grpc.stop(grace=None).wait()
        self._rest.shutdown()
        self._rest.server_close()
        self._rest_thread.join()


def start_weaviate_double() -> WeaviateDouble:
    """Starts a fresh, empty double in threads of this process and returns once both ports accept connections."""
    store = Store()
    rest = RestServer(store, HOST)
    rest_thread = threading.Thread(target=rest.serve_forever, name="weaviate-double-rest", daemon=True)
    rest_thread.start()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="weaviate-double-grpc"))
    weaviate_pb2_grpc.add_WeaviateServicer_to_server(Servicer(store), server)  # type: ignore[no-untyped-call]
    server.add_generic_rpc_handlers((health_handler(),))
    grpc_port = server.add_insecure_port(f"{HOST}:0")
    server.start()
    return WeaviateDouble(rest.server_address[1], grpc_port, store, rest, rest_thread, server)
