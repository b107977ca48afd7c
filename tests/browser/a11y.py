"""axe-core (from frontend/node_modules, never a CDN) run in the page, and its findings in words."""

from __future__ import annotations

from typing import Any

from app.config import ROOT

AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Every WCAG 2.x A/AA violation axe finds on the page as it is now."""
    assert AXE.is_file(), f"{AXE} is missing: run `npm ci` in frontend/"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # The app's CSP allows only its own scripts, so axe is served from the page's origin
        # by the test itself (never by the app, never from a CDN).
        origin = page.evaluate("location.origin")
        url = f"{origin}/__test-only__/axe.min.js"
        page.route(url, lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"))
        page.add_script_tag(url=url)
    options = {"runOnly": {"type": "tag", "values": TAGS}}
    found: list[dict[str, Any]] = page.evaluate(
        "options => axe.run(document, options).then(r => r.violations)", options
    )
    return found


def describe(violations: list[dict[str, Any]]) -> str:
    """One paragraph per violation: rule, impact, help and the first few offending elements."""
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']} ({v['helpUrl']})")
        for node in v["nodes"][:5]:
            target = " ".join(map(str, node["target"]))
            lines.append(f"    {target}: {node['failureSummary']!s}"[:400])
    return "\n".join(lines)


def assert_accessible(page: Any, where: str) -> None:
    """Fail with a readable list when axe finds a serious or critical violation."""
    blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    assert not blocking, f"axe on {where} ({page.url}):\n{describe(blocking)}"
