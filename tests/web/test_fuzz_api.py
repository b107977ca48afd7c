"""The JSON API fuzzed from its own OpenAPI schema: no 500s, only declared codes and bodies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig

from app.main import create_app
from app.users.models import Role
from tests.conftest import fresh_data_dir, make_token
from tests.progress.helpers import add_submission

# Fixed seed, deterministic generation, no example database: every run sends the same requests.
# The coverage phase adds each parameter's edge values (huge ids, empty strings, wrong types);
# the small fuzzing budget keeps both roles well under a minute on two cores.
CONFIG = {
    "seed": 22,
    "generation": {
        "mode": "all",  # valid requests and invalid ones
        "max-examples": 10,
        "deterministic": True,
        "database": "none",
    },
}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

# Real names as parameter examples, so the examples phase also reaches the answers behind them.
# Not for the submission body or a regrade: those would grade code in real sandboxes (with no
# warm pool each job starts its own, seconds apiece), and random slugs are only refused.
EXAMPLES = {
    "/plots/{name}.svg": "sinusoidal-heatmap",
    "/api/drafts/{exercise}": "position-embedding-gather",
    "/api/instructor/exercises/{slug}/analytics": "position-embedding-gather",
    "/api/lessons/{slug}/quiz": "why-position",
    "/api/lessons/{slug}/quiz/attempts": "why-position",
}
SEEDED_EXERCISE = "sinusoidal-positional-encoding"  # submission 1, already graded


def _with_examples(spec: dict[str, Any]) -> dict[str, Any]:
    for path, example in EXAMPLES.items():
        for operation in spec["paths"][path].values():
            for parameter in operation["parameters"]:
                if parameter["in"] == "path":
                    parameter["example"] = example
    return spec


# Nothing is excluded: every operation in the schema is safe to call with any input (logout and
# the LMS endpoints are not in it; a submission for a random slug is refused before queueing).
schema = schemathesis.openapi.from_dict(
    _with_examples(create_app().openapi()), config=SchemathesisConfig.from_dict(CONFIG)
)


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app and database for the whole module: a fresh one per operation costs ~1 s each."""
    with (
        pytest.MonkeyPatch.context() as monkeypatch,
        fresh_data_dir(tmp_path_factory.mktemp("fuzz") / "var", monkeypatch),
        TestClient(create_app()) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def tokens(fuzz_client: TestClient) -> dict[Role, dict[str, str]]:
    """Authorization headers of a student (user 1, owner of graded submission 1) and an
    instructor; small ids are the first ones generated, so reads also find a real row."""
    headers = {
        role: {"Authorization": f"Bearer {make_token(f'{role.value}@example.org', role)}"}
        for role in (Role.student, Role.instructor)
    }
    assert add_submission(1, SEEDED_EXERCISE) == 1
    for path, example in EXAMPLES.items():  # the examples still name real things
        url = path.replace("{name}", example).replace("{exercise}", example)
        response = fuzz_client.get(url.replace("{slug}", example), headers=headers[Role.instructor])
        assert response.status_code != 404, url
    return headers


def _check(case: Any, client: TestClient, headers: dict[str, str]) -> None:
    """Send the case through the app's own test client (its lifespan is running) and check it."""
    kwargs = case.as_transport_kwargs(headers=headers)  # shaped for `requests`; adapt to httpx
    if not kwargs.get("cookies"):
        kwargs.pop("cookies", None)
    if isinstance(kwargs.get("data"), bytes | str):
        kwargs["content"] = kwargs.pop("data")
    response = client.request(**kwargs)
    case.validate_response(response, checks=CHECKS)


@schema.parametrize()
def test_api_as_a_student(
    case: Any, fuzz_client: TestClient, tokens: dict[Role, dict[str, str]]
) -> None:
    _check(case, fuzz_client, tokens[Role.student])


@schema.parametrize()
def test_api_as_an_instructor(
    case: Any, fuzz_client: TestClient, tokens: dict[Role, dict[str, str]]
) -> None:
    _check(case, fuzz_client, tokens[Role.instructor])
