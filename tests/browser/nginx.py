"""deploy/nginx.conf as the tests run it (tests/site/test_deploy.py, tests/browser/conftest.py's
``nginx_url``): every path in a folder of the test's, ports of its own, the app servers the test
started as the upstreams, and no certificate (plain HTTP on the loopback address, as the other
browser tests), or a self-signed one made for the test."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NGINX = Path(shutil.which("nginx") or "/usr/sbin/nginx")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def self_signed(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=lei.example.nl", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def render(
    folder: Path,
    *,
    port: int,
    pages: str = "127.0.0.1:1",
    streams: str = "127.0.0.1:1",
    static: Path | None = None,
    tls: bool = False,
) -> Path:
    """The main configuration (to ``nginx -p folder -c``) around deploy/nginx.conf: its
    server on ``port`` (TLS with a self-signed certificate when ``tls``, else plain HTTP), the
    upstreams ``pages`` and ``streams`` (host:port), static files from ``static``."""
    site = (DEPLOY / "nginx.conf").read_text()
    site = re.sub(r"upstream lei \{[^}]*\}", f"upstream lei {{ server {pages}; }}", site)
    site = re.sub(
        r"upstream lei_push \{[^}]*\}", f"upstream lei_push {{ server {streams}; }}", site
    )
    site = site.replace("/srv/lei/staticfiles/", f"{static or folder}/")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{free_port()};")
    if tls:
        cert, key = self_signed(folder)
        site = site.replace("/etc/letsencrypt/live/lei.example.nl/fullchain.pem", str(cert))
        site = site.replace("/etc/letsencrypt/live/lei.example.nl/privkey.pem", str(key))
        site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{port} ssl http2;")
    else:
        site = re.sub(r"\n\s*ssl_[a-z_]+ [^\n]*;", "", site)
        site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{port};")
    (folder / "site.conf").write_text(site)
    main = folder / "nginx.conf"
    # Its workers run as the current user, who can read the test's folders (nginx started by
    # root would hand them to "nobody" otherwise).
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
    main.write_text(
        f"{user}pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\nhttp {{\n"
        f"  include /etc/nginx/mime.types;\n  access_log {folder}/access.log;\n"
        f"  client_body_temp_path {folder}/body;\n  proxy_temp_path {folder}/proxy;\n"
        f"  fastcgi_temp_path {folder}/fastcgi;\n  uwsgi_temp_path {folder}/uwsgi;\n"
        f"  scgi_temp_path {folder}/scgi;\n  include {folder}/site.conf;\n}}\n"
    )
    return main
