from transformers import AutoModelForSeq2SeqLM, AutoTokenizer


def load_model_and_tokenizer(name="t5-base"):
    tokenizer = AutoTokenizer.from_pretrained(name)
    model = AutoModelForSeq2SeqLM.from_pretrained(name)
    return model, tokenizer
