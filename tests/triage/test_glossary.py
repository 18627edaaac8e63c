from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.glossary import gloss
from mldebug_mcp.triage.text import concepts


def test_english_text_is_left_alone():
    text = "loss stuck at 2.30 from the first epoch"
    assert gloss(text) == text


def test_chinese_terms_are_glossed_and_the_original_kept():
    text = "训练的时候loss不下降，验证集准确率很低"
    glossed = gloss(text)
    assert glossed.startswith(text)
    assert "not decreasing" in glossed and "validation set" in glossed and "accuracy" in glossed


def test_a_longer_phrase_consumes_its_parts():
    glossed = gloss("loss不下降")
    assert "loss not decreasing" in glossed
    assert glossed.count("decreasing") == 1  # not also the bare "下降" -> "decreasing"


def test_glossed_text_carries_the_concepts():
    assert "_stuck" in concepts(gloss("模型的loss不收敛"))
    assert "_stuck" not in concepts("模型的loss")


def test_triage_reads_a_chinese_description():
    result = triage("多卡训练的时候显存越来越大，最后爆显存")
    causes = [h.cause for h in result.hypotheses[:3]]
    assert "memory-leak-graph-retained" in causes
    assert result.symptom.startswith("多卡")  # the person's own words are echoed back, not the gloss


def test_a_term_with_a_latin_capital_is_found_in_any_case():
    # gloss() reads the lowercased text, so a glossary term written F值 must match "F值" and "f值" alike
    assert "F1 score" in gloss("验证集F值很低") and "F1 score" in gloss("验证集f值很低")
