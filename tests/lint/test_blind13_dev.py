"""Blind split 13's misses, as development data: a schedule built in one file and stepped per batch by the
training function of another file it is handed to (MLD039, llama-recipes); the quiet variants beside it. The
single-file shapes are in the rules' fixtures (mld015, mld038, mld039, mld040)."""

from pathlib import Path

from .families import both_ways

FINETUNE = (
    "from torch.optim.lr_scheduler import StepLR\n"
    "from utils.train_utils import train\n"
    "def main(model, optimizer, train_dataloader, eval_dataloader, train_config):\n"
    "    scheduler = StepLR(optimizer, step_size=1, gamma=train_config.gamma)\n"
    "    return train(model, train_dataloader, eval_dataloader, optimizer, scheduler, train_config)\n"
)
TRAIN_UTILS = (
    "def train(model, train_dataloader, eval_dataloader, optimizer, lr_scheduler, train_config):\n"
    "    for epoch in range(train_config.num_epochs):\n"
    "        for step, batch in enumerate(train_dataloader):\n"
    "            loss = model(**batch).loss\n"
    "            loss.backward()\n"
    "            optimizer.step()\n"
    "            optimizer.zero_grad()\n"
    "            lr_scheduler.step()\n"
)


def _project(tmp_path: Path, finetune: str = FINETUNE, train_utils: str = TRAIN_UTILS) -> Path:
    (tmp_path / "utils").mkdir()
    (tmp_path / "llama_finetuning.py").write_text(finetune)
    (tmp_path / "utils" / "train_utils.py").write_text(train_utils)
    return tmp_path


def test_a_schedule_decaying_every_step_handed_to_a_per_batch_loop_of_another_file(tmp_path):
    assert both_ways(_project(tmp_path), "MLD039") == [("train_utils.py", 8)]


def test_an_epoch_count_schedule_handed_to_a_per_batch_loop_of_another_file(tmp_path):
    cosine = FINETUNE.replace("StepLR(optimizer, step_size=1, gamma=train_config.gamma)",
                              "CosineAnnealingLR(optimizer, T_max=train_config.num_epochs)").replace(
        "import StepLR", "import CosineAnnealingLR")
    assert both_ways(_project(tmp_path, finetune=cosine), "MLD039") == [("train_utils.py", 8)]


def test_handed_but_stepped_once_per_epoch_is_quiet(tmp_path):
    per_epoch = TRAIN_UTILS.replace("            lr_scheduler.step()\n", "        lr_scheduler.step()\n")
    assert both_ways(_project(tmp_path, train_utils=per_epoch), "MLD039") == []


def test_a_schedule_sized_in_batches_handed_over_is_quiet(tmp_path):
    batches = FINETUNE.replace("StepLR(optimizer, step_size=1, gamma=train_config.gamma)",
                               "StepLR(optimizer, step_size=1, gamma=0.9999)")
    assert both_ways(_project(tmp_path, finetune=batches), "MLD039") == []


def test_another_argument_of_the_same_function_is_not_the_schedule(tmp_path):
    # the epoch-sized schedule goes to the 5th parameter; the loop steps per batch a warm-up schedule handed in
    # as another parameter, which the building file never sizes in epochs
    other = TRAIN_UTILS.replace("lr_scheduler, train_config):", "lr_scheduler, train_config, warmup_scheduler):") \
        .replace("            lr_scheduler.step()\n", "            warmup_scheduler.step()\n")
    assert "warmup_scheduler.step()" in other and "lr_scheduler.step()" not in other
    assert both_ways(_project(tmp_path, train_utils=other), "MLD039") == []
