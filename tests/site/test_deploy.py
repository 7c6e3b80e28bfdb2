"""deploy/: the production stack as files (README, "Production"). Debian's nginx reads the
proxy's configuration, rendered with a test's own paths and a certificate made for the test,
and finds it valid; the units start the servers the README names."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render(tmp_path: Path) -> Path:
    """deploy/nginx.conf inside a main configuration whose every path is in ``tmp_path``, with
    a self-signed certificate and free ports, so that it runs as the current user."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=lei.example.nl", "-keyout", str(tmp_path / "key.pem"),
         "-out", str(tmp_path / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    site = (DEPLOY / "nginx.conf").read_text()
    site = site.replace(
        "/etc/letsencrypt/live/lei.example.nl/fullchain.pem", str(tmp_path / "cert.pem")
    )
    site = site.replace(
        "/etc/letsencrypt/live/lei.example.nl/privkey.pem", str(tmp_path / "key.pem")
    )
    site = site.replace("/srv/lei/staticfiles/", f"{tmp_path}/static/")
    site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{free_port()} ssl;").replace(
        "listen 80;", f"listen 127.0.0.1:{free_port()};"
    )
    (tmp_path / "site.conf").write_text(site)
    main = tmp_path / "nginx.conf"
    main.write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {tmp_path}/body;\n"
        f"  proxy_temp_path {tmp_path}/proxy;\n  include {tmp_path}/site.conf;\n}}\n"
    )
    return main


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (.ci/run installs it)")
def test_nginx_accepts_the_proxy_configuration(tmp_path):
    main = render(tmp_path)
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(main)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    site = (DEPLOY / "nginx.conf").read_text()
    assert "proxy_buffering off;" in site.split("location = /stroom/", 1)[1].split("}", 1)[0]
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in site


def test_the_units_start_the_servers_the_readme_names():
    web = (DEPLOY / "lei-web.service").read_text()
    stream = (DEPLOY / "lei-stream.service").read_text()
    assert "gunicorn toepen_site.wsgi" in web
    assert "gunicorn toepen_site.asgi -w 1 -k uvicorn_worker.UvicornWorker" in stream
    env = (DEPLOY / "env.example").read_text()
    for name in (
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "DATABASE_URL",
        "TRUSTED_PROXY_COUNT",
        "PUSH",
    ):
        assert f"\n{name}=" in f"\n{env}"
