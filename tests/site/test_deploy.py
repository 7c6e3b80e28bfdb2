"""deploy/: the production stack as files (README, "Production"). Debian's nginx reads the
proxy's configuration, rendered with a test's own paths, ports and self-signed certificate
(tests/browser/nginx.py), and finds it valid; the units start the servers the README names.
tests/browser/test_nginx.py runs it in front of the app."""

from __future__ import annotations

import subprocess

import pytest

from tests.browser.nginx import DEPLOY, NGINX, free_port, render


@pytest.mark.skipif(not NGINX.exists(), reason="nginx is not installed (.ci/run installs it)")
def test_nginx_accepts_the_proxy_configuration_with_tls(tmp_path):
    main = render(tmp_path, port=free_port(), tls=True)
    checked = subprocess.run(
        [str(NGINX), "-t", "-p", str(tmp_path), "-c", str(main)], capture_output=True, text=True
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
    for name in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "TRUSTED_PROXY_COUNT"):
        assert f"\n{name}=" in f"\n{env}"
