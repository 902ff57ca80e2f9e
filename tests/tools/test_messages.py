"""The catalogue: every text exists in zh and en with the same placeholders."""

from __future__ import annotations

import string

from planner_cli.tools.messages import _catalogue, t


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_has_both_languages_with_the_same_placeholders():
    catalogue = _catalogue()
    assert len(catalogue) > 50
    for key, texts in catalogue.items():
        assert set(texts) == {"zh", "en"}, key
        zh, en = _fields(texts["zh"]), _fields(texts["en"])
        # a weekday label is a number in zh and a name in en; everything else must match
        assert zh - {"dow"} == en - {"dow_name"}, key


def test_english_texts_are_not_chinese():
    for key, texts in _catalogue().items():
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in texts["en"]), key


def test_t_formats_the_seed_wording():
    assert t("zh", "pending_left", count=2) == "待安排任务剩余：2个。"
    assert t("en", "pending_left", count=2) == "Pending tasks left: 2."
