"""``reply_language``: naming the expected language, placing replies, what the verdict says."""

import pytest
from pydantic import ValidationError

from adhere.judging.verifiers._language import ReplyLanguageParams
from tests.unit.judging.test_verif_support import ctx, instance, say, traj, user, verdict

EN = "The function returns the total value of the items in the inventory."
FR = "La fonction renvoie la valeur totale des articles dans le stock."


@pytest.mark.parametrize(
    ("given", "code"),
    [("en", "en"), (" EN ", "en"), ("zh-TW", "zh"), ("pt_BR", "pt"), ("Japanese", "ja"),
     ("german", "de")],
)  # fmt: skip
def test_a_language_is_given_by_code_region_or_english_name(given, code) -> None:
    assert ReplyLanguageParams(language=given).language == code


def test_unknown_languages_and_ambiguous_sources_are_refused() -> None:
    with pytest.raises(ValidationError, match="unsupported language 'klingon'; supported: ar, bg"):
        ReplyLanguageParams(language="klingon")
    with pytest.raises(ValidationError, match="give exactly one of 'language'"):
        ReplyLanguageParams()
    with pytest.raises(ValidationError, match="give exactly one of 'language'"):
        ReplyLanguageParams(language="en", same_as_user=True)
    assert ReplyLanguageParams(same_as_user=True).language is None


def test_a_reply_in_another_language_fails_naming_both() -> None:
    context = ctx(traj(say(EN), say(FR)))
    outcome = verdict("reply_language", context, language="en")
    assert (outcome.result, outcome.evidence) == ("fail", 1)
    assert outcome.reasoning.startswith("message 1 is in French (fr), expected English (en): “")
    assert outcome.details["detected"] == "fr" and outcome.details["expected"] == "en"
    assert outcome.details["why"].startswith("11 words; fr")


def test_a_pass_counts_the_placed_replies_and_the_unclear_ones() -> None:
    one = verdict("reply_language", ctx(traj(say(EN))), language="en")
    assert (one.result, one.reasoning) == ("pass", "1 reply in English (en)")
    assert one.details == {"expected": "en", "params": one.details["params"]}
    mixed = ctx(traj(say(EN), say("OK."), say(EN)))
    outcome = verdict("reply_language", mixed, language="en")
    assert outcome.reasoning == "2 replies in English (en); 1 too short or unclear to tell"


def test_no_placeable_reply_is_n_a_with_the_first_reasons() -> None:
    context = ctx(traj(say("OK."), say("`x = 1`"), say("Fine."), say("Yes.")))
    outcome = verdict("reply_language", context, language="en")
    assert outcome.result == "n/a"
    assert outcome.reasoning == (
        "no reply has enough natural-language text to tell its language (message 0: only 1 "
        "words of prose; message 1: no natural-language text; message 2: only 1 words of prose)"
    )
    none = verdict("reply_language", ctx(traj(user("hi"))), language="en")
    assert (none.result, none.reasoning) == ("n/a", "the assistant wrote no reply in scope")


def test_same_as_user_reads_the_first_user_turn() -> None:
    french_user = instance(turns=(FR, "Et maintenant ?"))
    assert (
        verdict("reply_language", ctx(traj(say(FR)), french_user), same_as_user=True).result
        == "pass"
    )
    outcome = verdict("reply_language", ctx(traj(say(EN)), french_user), same_as_user=True)
    assert outcome.result == "fail" and "expected French (fr)" in outcome.reasoning
    terse = instance(turns=("Go!",))
    unclear = verdict("reply_language", ctx(traj(say(EN)), terse), same_as_user=True)
    assert unclear.result == "n/a"
    assert unclear.reasoning == "cannot tell the language of the user's turn: only 1 words of prose"


def test_scope_and_reasoning() -> None:
    context = ctx(traj(say(FR), say(EN, reasoning=" ".join([FR] * 4))))
    assert verdict("reply_language", context, language="en", scope="final").result == "pass"
    assert verdict("reply_language", context, language="en").result == "fail"
    with_reasoning = verdict(
        "reply_language", context, language="en", scope="final", include_reasoning=True
    )
    assert with_reasoning.result == "fail"
