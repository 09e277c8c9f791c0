"""/docs and /redoc work on a network with no internet: every asset the pages name is served by the app itself
(from the fastapi-offline package), and neither the pages nor the stylesheet name another host."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from app.api.main import create_app

from .servers import serve


class _Links(HTMLParser):
    """Every URL a page makes the browser load: src, href, and the spec-url / url the scripts fetch."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href", "spec-url") and value:
                self.urls.append(value)
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


@pytest.fixture
def base_url(api_settings, sqlite_engine):
    with serve(create_app(api_settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as url:
        yield url


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_documentation_pages_load_everything_from_the_app(base_url, page):
    with httpx.Client(base_url=base_url, timeout=10) as http:
        html = http.get(page)
        assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
        links = _Links()
        links.feed(html.text)
        inline = "\n".join(links.scripts)
        urls = links.urls + re.findall(r"""url:\s*['"]([^'"]+)['"]""", inline)
        assert any(u.endswith(".js") for u in urls) and any(u.endswith("openapi.json") for u in urls)
        for url in urls:
            parts = urlsplit(url)
            assert not parts.scheme and not parts.netloc, f"{page} loads {url} from another host"
            asset = http.get(urljoin(page, url))
            assert asset.status_code == 200 and len(asset.content) > 1000, url
        # No other host anywhere in the page or its inline scripts (a CDN, Google Fonts, the validator badge).
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", html.text, re.IGNORECASE), html.text
        if page == "/docs":
            assert '"validatorUrl": null' in inline  # Swagger UI would otherwise fetch validator.swagger.io
            css = http.get("/static-offline-docs/swagger-ui.css").text
            assert not [u for u in re.findall(r"url\(([^)]*)\)", css) if not u.strip("'\"").startswith("data:")]
