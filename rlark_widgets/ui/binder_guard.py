"""The app's access guard on Binder, as a jupyter_server extension (``binder/start`` enables it).

On Binder the app is not started by ``rlark-app``: Binder starts its own Jupyter server behind
JupyterHub's proxy, and that server's token (the hub's login) is the user's key; the guard adds
what the server lacks, the same checks as on a laptop (:mod:`rlark_widgets.ui.access`): a
``Host`` that is loopback or the proxy's public name, an ``Origin`` that is the proxy's public
origin, and a user on every handler (Voila's static ones included). The public address comes
from JupyterHub's environment (``$JUPYTERHUB_PUBLIC_URL``, ``$JUPYTERHUB_PUBLIC_HUB_URL``,
``$JUPYTERHUB_HOST``) or from ``$RLARK_APP_ORIGINS`` (comma-separated, e.g.
``https://hub.example.org``); when none is known only loopback is served: the guard never
falls back to accepting any Host.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from jupyter_server.serverapp import ServerApp
from tornado.ioloop import IOLoop

from rlark_widgets.ui.access import AccessPolicy, guard_routes

ORIGINS_VARIABLE = "RLARK_APP_ORIGINS"
#: JupyterHub's variables that name the public address of a single-user server, when set.
HUB_URL_VARIABLES = ("JUPYTERHUB_PUBLIC_URL", "JUPYTERHUB_PUBLIC_HUB_URL", "JUPYTERHUB_HOST")


def binder_policy(environ: Mapping[str, str], port: int) -> AccessPolicy:
    """Loopback on ``port``, plus the public origins the environment names."""
    urls = [environ.get(name, "") for name in HUB_URL_VARIABLES]
    urls += environ.get(ORIGINS_VARIABLE, "").split(",")
    return AccessPolicy.loopback(port).also_at(url for url in urls if "://" in url)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "rlark_widgets.ui.binder_guard"}]


def _load_jupyter_server_extension(serverapp: ServerApp) -> None:
    web_app = serverapp.web_app
    policy = binder_policy(os.environ, serverapp.port)
    web_app.settings["rlark_access_policy"] = policy
    serverapp.log.info("rlark-widgets: serving hosts %s", ", ".join(sorted(policy.host_names)))
    # Extensions load in name order, Voila's after this one: guard the routes once all are in,
    # when the loop starts and before it serves a request.
    IOLoop.current().add_callback(guard_routes, web_app.default_router)
