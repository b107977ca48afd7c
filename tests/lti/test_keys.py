"""Key rotation in two steps, seen by an LMS that caches the tool's key set; the JWKS format."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from app.config import get_settings
from app.lti import keys
from app.lti.tokens import forget_tokens
from tests.conftest import run_cli
from tests.lti.conftest import LEARNER, launch
from tests.lti.helpers import EXERCISE, _all_sent, _graded_submission, _user_id, _wait
from tests.lti.platform import Platform

DAY = 86400.0


def _kids(client: TestClient) -> list[str]:
    return [k["kid"] for k in client.get("/lti/jwks").json()["keys"]]


def _score_arrives(platform: Platform, user_id: int, count: int) -> str:
    """A fresh token request (so a fresh client assertion), a grade, and the kid that signed it."""
    forget_tokens()
    _graded_submission(user_id, 0.5 + count / 100)
    _wait(lambda: len(platform.scores) == count and _all_sent())
    return platform.assertion_kids[-1]


def test_an_lms_that_cached_the_keys_keeps_accepting_the_tool_through_a_rotation(
    lti_client: TestClient, platform: Platform
) -> None:
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    user_id = _user_id("s-1")
    current = _score_arrives(platform, user_id, 1)
    rotated = run_cli("lti", "rotate-key")
    assert rotated.returncode == 0, rotated.stderr
    # The LMS still holds the key set it fetched before the rotation: nothing changes for it.
    assert _score_arrives(platform, user_id, 2) == current
    published = _kids(lti_client)
    assert published[0] == current and len(published) == 2  # the next key is only published
    assert "still signs" in rotated.stdout and "--activate" in rotated.stdout
    # Within the delay the LMS's cache expires once, so it now holds both keys.
    platform.clock_offset += platform.jwks_cache_seconds + 1
    assert [k["kid"] for k in platform.cached_tool_jwks()] == published
    activated = run_cli("lti", "rotate-key", "--activate")
    assert activated.returncode == 0, activated.stderr
    assert _score_arrives(platform, user_id, 3) == published[1]  # the new key signs...
    assert _kids(lti_client) == [published[1], current]  # ...and the retired one stays published


def test_the_next_key_signs_after_the_delay_and_the_retired_key_leaves_after_another(
    data_dir: object,
) -> None:
    delay = get_settings().lti_key_rotation_days * DAY
    assert delay >= DAY  # long enough for LMSs that cache key sets for a day
    first = keys.signing_key()
    start = time.time()
    rotation = keys.rotate_key(now=start)
    assert rotation.created and rotation.activates_at == start + delay
    upcoming = rotation.key
    assert keys.rotate_key(now=start + 60).key.kid == upcoming.kid  # no third key meanwhile
    before = start + delay - 60
    assert keys.signing_key(now=before).kid == first.kid
    assert [k["kid"] for k in keys.public_keys(now=before)] == [first.kid, upcoming.kid]
    after = start + delay + 60
    assert keys.signing_key(now=after).kid == upcoming.kid
    assert [k["kid"] for k in keys.public_keys(now=after)] == [upcoming.kid, first.kid]
    assert [k["kid"] for k in keys.public_keys(now=after + delay + 60)] == [upcoming.kid]
    assert keys.signing_key(now=after + delay + 60).kid == upcoming.kid


def test_activate_without_a_published_next_key_is_refused_in_plain_words(
    data_dir: object,
) -> None:
    refused = run_cli("lti", "rotate-key", "--activate")
    assert refused.returncode != 0
    assert "no next key" in refused.stderr and "lti rotate-key" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_the_jwks_says_use_sig_and_not_key_ops(lti_client: TestClient) -> None:
    run_cli("lti", "rotate-key")
    published = lti_client.get("/lti/jwks").json()["keys"]
    assert len(published) == 2
    for jwk in published:
        assert jwk["use"] == "sig" and jwk["alg"] == "RS256" and jwk["kty"] == "RSA"
        assert "key_ops" not in jwk  # RFC 7517 section 4.3: not both
