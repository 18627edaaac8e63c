"""A zoo of healthy training setups the diagnose checks were not written for.

Each module builds one small, healthy setup in the shape of a well-known public architecture
and exposes `debug_spec(seed=0, optimizer=True)`: the diagnose contract dict, with the optimizer
its authors use, or without one (diagnose then uses its default). Its docstring's first line
says which real code it follows. `SETUPS` is the index; `load_spec` builds one, from the file or
from a mutated copy of its source (see mutations.py).
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import linecache
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = __name__

SETUPS: tuple[str, ...] = (
    "resnet18",
    "mobilenet_v2",
    "lenet5",
    "vgg11_bn",
    "vit_tiny",
    "frozen_backbone",
    "unet_segmentation",
    "fcn_segmentation",
    "pointnet",
    "conv_autoencoder",
    "gru_lm_bvt",
    "lstm_lm_tied",
    "nanogpt",
    "conv1d_gru_classifier",
    "tanh_mlp_bce",
    "hf_bert_classifier",
    "hf_gpt2_lm",
    "hf_t5_seq2seq",
    "bilstm_tagger",
    "kim_cnn_text",
    "transformer_encoder_classifier",
    "wavenet",
    "vae",
    "dcgan",
    "gin_graph_classification",
    "multilabel_bce",
    "class_weighted_ce",
    "multi_target_regression",
    "tabular_embeddings",
    "ncf_recommender",
    "lstm_forecaster",
    "pinn_tanh_lbfgs",
    "timeseries_fcn",
    "softmax_regression",
    # Written blind on 2026-11-27 by three helpers who never saw the checks (representation learning,
    # generative and stochastic objectives, other training regimes); scored once before any check changed
    # on them (benchmarks/diagnose_zoo2_blind.md), development data since.
    "accum_clip_bf16_step",
    "arcface_head",
    "bert_mlm",
    "beta_vae_annealed",
    "byol_ema",
    "center_loss",
    "clip_contrastive",
    "cox_survival",
    "ctc_speech",
    "ddpm_eps_prediction",
    "distillation_kd",
    "gaussian_nll_heteroscedastic",
    "mae_random_masking",
    "mixup_classifier",
    "moe_aux_loss",
    "ranknet_pairwise",
    "realnvp_flow",
    "siamese_contrastive_pairs",
    "simclr_ntxent",
    "sngan_discriminator",
    "supcon",
    "triplet_batch_hard",
    "vqvae",
    "wgan_gp",
    # A third round written blind the same way later that day (detection, segmentation, sequence, graph and
    # RL losses; self-supervised and multi-task objectives), scored once on the checks after the second
    # round's fixes (benchmarks/diagnose_zoo2_blind.md).
    "bilstm_crf_ner",
    "dqn_target_network",
    "fcos_detection_losses",
    "gcn_node_classification",
    "ppo_clipped_update",
    "seq2seq_teacher_forcing",
    "skipgram_negative_sampling",
    "unet_dice_loss",
    "barlow_twins",
    "bpr_recommender",
    "byol_ema_target",
    "fixmatch_pseudo_labels",
    "gumbel_softmax_vae",
    "style_transfer_gram",
    "uncertainty_weighted_multitask",
    "vicreg",
)


def setup_path(name: str) -> Path:
    if name not in SETUPS:
        raise ValueError(f"unknown zoo setup {name!r}; expected one of {', '.join(SETUPS)}")
    return HERE / f"{name}.py"


def provenance(name: str) -> str:
    """The first line of the setup module's docstring: which real code it follows."""
    module = importlib.import_module(f"{PACKAGE}.{name}")
    return (module.__doc__ or "").strip().splitlines()[0]


_module_ids = itertools.count()


def load_module(name: str, source: str | None = None) -> types.ModuleType:
    """A fresh module of the setup: its file, or `source` (a mutated copy) run in its place."""
    path = setup_path(name)
    if source is None:
        source = path.read_text(encoding="utf-8")
        filename = str(path)
    else:
        digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:12]
        filename = f"<zoo {name} mutated {digest}>"
        # Register the text so tracebacks and inspect can show the mutated lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    module = types.ModuleType(f"{PACKAGE}.{name}__{next(_module_ids)}")
    module.__file__ = filename
    module.__package__ = PACKAGE  # the setups import the shared data helpers relatively
    sys.modules[module.__name__] = module  # dataclasses and pickling look classes up by module
    exec(compile(source, filename, "exec"), module.__dict__)  # noqa: S102 - running the setup is the point
    return module


def load_spec(name: str, seed: int = 0, optimizer: bool = True, source: str | None = None) -> dict:
    """A fresh debug spec of the setup (new module, so no state leaks between runs)."""
    return load_module(name, source).debug_spec(seed, optimizer=optimizer)
