"""The YAML reader the app uses: libyaml's speed, PyYAML's results and errors."""

from __future__ import annotations

import pytest
import yaml

from app import yamlio

DOCUMENT = """slug: gather
order: 3
ratio: 0.5
flags: [yes, no, on, off]
when: 2027-01-15
text: |
  two
  lines
nothing:
"""


def test_the_same_objects_as_pyyaml() -> None:
    assert yamlio.safe_load(DOCUMENT) == yaml.safe_load(DOCUMENT)


def test_libyaml_is_used_when_pyyaml_has_it() -> None:
    if yaml.__with_libyaml__:
        assert yamlio.SafeLoader is yaml.CSafeLoader
    else:
        assert yamlio.SafeLoader is yaml.SafeLoader


def test_errors_carry_the_line_as_before() -> None:
    with pytest.raises(yaml.MarkedYAMLError) as caught:
        yamlio.safe_load("a: 1\nb: [unclosed\n")
    assert caught.value.problem_mark is not None and caught.value.problem_mark.line >= 1


def test_tags_that_build_python_objects_are_refused() -> None:
    with pytest.raises(yaml.YAMLError):
        yamlio.safe_load("!!python/object/apply:os.system ['true']\n")
