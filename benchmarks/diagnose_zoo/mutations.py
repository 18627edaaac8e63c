"""One-line bugs planted in the zoo's setups, each tagged with the diagnose check meant to catch it.

A mutation replaces one exact fragment, which occurs once in its setup's source, with a one-line
replacement; the check is chosen for what the bug is (the check whose purpose covers it), before
any run, not for what happens to fire. Bugs that raise an exception at once (shape errors, out of
range labels) are left out: they are loud, and diagnose is for the silent ones.

    from benchmarks.diagnose_zoo.mutations import MUTATIONS, mutated_source
    from benchmarks.diagnose_zoo import load_spec
    spec = load_spec(m.setup, seed, source=mutated_source(m))
"""

from __future__ import annotations

from dataclasses import dataclass

from . import SETUPS, setup_path


@dataclass(frozen=True)
class Mutation:
    name: str
    setup: str  # zoo setup name, e.g. "resnet18"
    find: str  # exact fragment, occurring once in the setup's source, on one line
    replace: str  # its replacement, also on one line
    check: str  # id of the diagnose check meant to catch the bug
    description: str


SHUFFLE = "input_dependence"  # labels shuffled apart from their inputs
M = Mutation
MUTATIONS: tuple[Mutation, ...] = (
    # --- resnet18 -----------------------------------------------------------------------------
    M("resnet_softmax_head", "resnet18", "        return self.fc(x)\n", "        return self.fc(x).softmax(dim=1)\n",
      "loss_at_init", "The head returns softmax probabilities and cross_entropy applies log-softmax again."),
    M("resnet_stem_bn_batch_stats", "resnet18", "self.bn1 = nn.BatchNorm2d(width)",
      "self.bn1 = nn.BatchNorm2d(width, track_running_stats=False)", "batch_independence",
      "The stem's BatchNorm keeps no running statistics, so in eval mode it normalises with the batch's: samples leak into each other."),
    M("resnet_missing_zero_grad", "resnet18", "    optimizer.zero_grad()\n", "\n", "parameter_updates",
      "train_step never zeroes the gradients, so each step uses the sum of all past gradients."),
    M("resnet_lr_x100", "resnet18", "lr=0.1, momentum=0.9", "lr=10.0, momentum=0.9", "update_ratio",
      "SGD at lr 10 (100x the recipe's 0.1): every step rewrites the weights."),
    M("resnet_frozen_fc", "resnet18", "self.fc = nn.Linear(8 * width, num_classes)",
      "self.fc = nn.Linear(8 * width, num_classes).requires_grad_(False)", "parameter_updates",
      "The classifier is frozen by mistake and never trains."),
    M("resnet_shuffled_labels", "resnet18", '"batch": (normalise_images(images), labels),',
      '"batch": (normalise_images(images), labels[torch.randperm(labels.numel(), generator=gen)]),', SHUFFLE,
      "Labels are shuffled apart from their images when the batch is built."),
    # --- mobilenet_v2 ---------------------------------------------------------------------------
    M("mnv2_detached_features", "mobilenet_v2", "        x = self.features(x)\n", "        x = self.features(x).detach()\n",
      "gradient_flow", "The feature extractor's output is detached: no layer before the classifier gets a gradient."),
    M("mnv2_softmax_head", "mobilenet_v2", "return self.classifier(torch.flatten(x, 1))",
      "return self.classifier(torch.flatten(x, 1)).softmax(dim=1)", "loss_at_init",
      "Softmax probabilities are fed to CrossEntropyLoss, which applies log-softmax again."),
    M("mnv2_optimizer_classifier_only", "mobilenet_v2", "torch.optim.SGD(params, lr=0.045",
      "torch.optim.SGD(list(params)[-2:], lr=0.045", "gradient_flow",
      "The optimizer is handed only the last layer's weight and bias; the features never change."),
    M("mnv2_zero_grad_before_step", "mobilenet_v2", "    optimizer.step()\n", "    optimizer.zero_grad(); optimizer.step()\n",
      "parameter_updates", "zero_grad runs between backward and step, so the step sees no gradient."),
    # --- lenet5 -----------------------------------------------------------------------------------
    M("lenet_constant_images", "lenet5", '"batch": (normalise_images(images), labels),',
      '"batch": (torch.zeros_like(images), labels),', "batch_sanity",
      "A pipeline bug hands the model blank images: every sample is identical."),
    M("lenet_raw_pixels", "lenet5", '"batch": (normalise_images(images), labels),',
      '"batch": ((255 * images).round(), labels),', "batch_sanity",
      "Images reach the model as raw 0-255 intensities instead of being normalised."),
    M("lenet_saturating_input_scale", "lenet5", "return self.classifier(self.features(x))",
      "return self.classifier(self.features(20 * x))", "activations",
      "Inputs are scaled up 20x before the first tanh layer, which saturates."),
    # --- vgg11_bn ---------------------------------------------------------------------------------
    M("vgg_dropout_in_eval", "vgg11_bn", "return self.classifier(torch.flatten(x, 1))",
      "return self.classifier(F.dropout(torch.flatten(x, 1), 0.5))", "train_eval_modes",
      "F.dropout without training=self.training stays active in eval mode."),
    M("vgg_lr_x500", "vgg11_bn", "lr=0.01, momentum=0.9", "lr=5.0, momentum=0.9", "update_ratio",
      "SGD at lr 5 (500x the recipe): updates larger than the weights."),
    # --- vit_tiny ---------------------------------------------------------------------------------
    M("vit_cls_token_frozen", "vit_tiny", "self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))",
      "self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM), requires_grad=False)", "parameter_updates",
      "The class token is created frozen, so the pooled token never learns."),
    M("vit_softmax_head", "vit_tiny", "return self.head(x[:, 0])", "return self.head(x[:, 0]).softmax(-1)",
      "loss_at_init", "The head returns probabilities that cross_entropy treats as logits."),
    M("vit_attention_dropout_in_eval", "vit_tiny", "dropout_p=self.attn_drop.p if self.training else 0.0",
      "dropout_p=self.attn_drop.p", "train_eval_modes", "Attention dropout is applied in eval mode too."),
    M("vit_qkv_reshape_mixes_batch", "vit_tiny",
      "qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)",
      "qkv = self.qkv(x).reshape(3, B, self.num_heads, N, self.head_dim)", "batch_independence",
      "q, k, v are split by a reshape where a permute belongs, mixing samples of the batch."),
    # --- unet_segmentation ------------------------------------------------------------------------
    M("unet_bn_batch_stats", "unet_segmentation", "nn.BatchNorm2d(mid)", "nn.BatchNorm2d(mid, track_running_stats=False)",
      "batch_independence", "BatchNorm without running statistics normalises with batch statistics in eval mode."),
    M("unet_softmax_out", "unet_segmentation", "return self.outc(x)  # (N, C, H, W) logits",
      "return self.outc(x).softmax(dim=1)", "loss_at_init",
      "Per-pixel class probabilities are fed to CrossEntropyLoss, which applies log-softmax again."),
    M("unet_missing_zero_grad", "unet_segmentation", "    optimizer.zero_grad()\n", "\n", "parameter_updates",
      "train_step never zeroes the gradients."),
    # --- gru_lm_bvt ---------------------------------------------------------------------------------
    M("gru_unshifted_targets", "gru_lm_bvt", '"batch": (seq[:, :-1], seq[:, 1:]),',
      '"batch": (seq[:, :-1], seq[:, :-1]),', "batch_sanity", "Targets are the inputs themselves, not the next tokens."),
    M("gru_bidirectional", "gru_lm_bvt", "self.gru = nn.GRU(embed, hidden, batch_first=True)",
      "self.gru = nn.GRU(embed, hidden // 2, batch_first=True, bidirectional=True)", "causality",
      "A bidirectional GRU reads the future tokens a language model must predict."),
    M("gru_not_batch_first", "gru_lm_bvt", "self.gru = nn.GRU(embed, hidden, batch_first=True)",
      "self.gru = nn.GRU(embed, hidden)", "batch_independence",
      "Without batch_first the GRU runs its recurrence across the batch axis of (B, T, E) inputs."),
    M("gru_softmax_output", "gru_lm_bvt", "return self.head(out).transpose(1, 2)",
      "return self.head(out).softmax(dim=-1).transpose(1, 2)", "loss_at_init",
      "The LM returns probabilities that CrossEntropyLoss treats as logits."),
    M("gru_class_dim_by_reshape", "gru_lm_bvt", "return self.head(out).transpose(1, 2)",
      "return self.head(out).reshape(out.shape[0], -1, out.shape[1])", "causality",
      "A reshape instead of a transpose puts the class dimension second, scrambling positions and classes."),
    # --- lstm_lm_tied -------------------------------------------------------------------------------
    M("lstm_softmax_for_nll", "lstm_lm_tied", "return F.log_softmax(decoded, dim=-1)",
      "return F.softmax(decoded, dim=-1)", "loss_at_init",
      "NLLLoss is given probabilities instead of log-probabilities: the loss is negative and meaningless."),
    M("lstm_unshifted_targets", "lstm_lm_tied", '"batch": (seq[:, :-1], seq[:, 1:]),',
      '"batch": (seq[:, :-1], seq[:, :-1]),', "batch_sanity", "Targets are the inputs themselves."),
    M("lstm_no_clipping_at_lr20", "lstm_lm_tied", "    torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)\n", "\n",
      "update_ratio", "The gradient clipping that makes SGD at lr 20 work is gone: updates explode."),
    M("lstm_dropout_in_eval", "lstm_lm_tied", "emb = self.drop(self.encoder(input))",
      "emb = F.dropout(self.encoder(input), 0.2)", "train_eval_modes",
      "Embedding dropout without training=self.training stays on in eval mode."),
    # --- nanogpt --------------------------------------------------------------------------------------
    M("gpt_mask_off_by_one", "nanogpt", "torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE))",
      "torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE), diagonal=1)", "causality",
      "The causal mask includes the next position: each token sees its successor."),
    M("gpt_heads_merged_without_transpose", "nanogpt", "y = y.transpose(1, 2).contiguous().view(B, T, C)",
      "y = y.contiguous().view(B, T, C)", "causality",
      "Heads are merged by a view of (B, nh, T, hs) without the transpose: positions are scrambled."),
    M("gpt_missing_zero_grad", "nanogpt", "    optimizer.zero_grad(set_to_none=True)  # flush the gradients as soon as we can\n",
      "\n", "parameter_updates", "The gradients are never flushed, so they accumulate across steps."),
    M("gpt_unshifted_targets", "nanogpt", '"batch": (data[:, :-1].contiguous(), data[:, 1:].contiguous()),',
      '"batch": (data[:, :-1].contiguous(), data[:, :-1].contiguous()),', "batch_sanity",
      "y is x itself, not x shifted by one."),
    # --- hf_gpt2_lm --------------------------------------------------------------------------------------
    M("gpt2_labels_shifted_twice", "hf_gpt2_lm", "labels = input_ids.masked_fill(attention_mask == 0, -100)",
      "labels = torch.roll(input_ids, -1, 1).masked_fill(attention_mask == 0, -100)", "batch_sanity",
      "The collator shifts the labels although the model shifts them again: it learns to predict two tokens ahead."),
    M("gpt2_causal_mask_dropped", "hf_gpt2_lm",
      "mask = causal if attention_mask is None else causal & attention_mask[:, None, None, :].bool()",
      "mask = attention_mask[:, None, None, :].bool()", "causality",
      "Only the padding mask reaches attention: every position sees the future."),
    M("gpt2_all_labels_masked", "hf_gpt2_lm", "labels = input_ids.masked_fill(attention_mask == 0, -100)",
      "labels = input_ids.masked_fill(attention_mask >= 0, -100)", "batch_sanity",
      "A masking condition that is always true sets every label to -100."),
    M("gpt2_zero_grad_before_step", "hf_gpt2_lm", "    optimizer.step()\n", "    optimizer.zero_grad(); optimizer.step()\n",
      "parameter_updates", "zero_grad runs between backward and step."),
    # --- hf_bert_classifier -----------------------------------------------------------------------------
    M("bert_pooler_input_detached", "hf_bert_classifier", "pooled = torch.tanh(self.pooler(hidden[:, 0]))",
      "pooled = torch.tanh(self.pooler(hidden[:, 0].detach()))", "gradient_flow",
      "The [CLS] state is detached before the pooler: the encoder gets no gradient."),
    M("bert_heads_view_mixes_batch", "hf_bert_classifier",
      "return x.view(B, T, HEADS, HIDDEN // HEADS).permute(0, 2, 1, 3)",
      "return x.view(HEADS, B, T, HIDDEN // HEADS).transpose(0, 1)", "batch_independence",
      "Heads are split by a view in the wrong order, mixing samples of the batch."),
    M("bert_missing_zero_grad", "hf_bert_classifier", "    optimizer.zero_grad()\n", "\n", "parameter_updates",
      "The Trainer-style step never zeroes the gradients."),
    M("bert_shuffled_labels", "hf_bert_classifier", '"token_type_ids": torch.zeros_like(input_ids), "labels": labels}',
      '"token_type_ids": torch.zeros_like(input_ids), "labels": labels[torch.randperm(labels.numel(), generator=gen)]}',
      SHUFFLE, "The collated labels are shuffled apart from their sentences."),
    # --- conv1d_gru_classifier ----------------------------------------------------------------------------
    M("cgru_conv_frozen", "conv1d_gru_classifier", "nn.Conv1d(in_channels, conv, kernel_size=5, padding=2)",
      "nn.Conv1d(in_channels, conv, kernel_size=5, padding=2).requires_grad_(False)", "parameter_updates",
      "The convolution is frozen by mistake."),
    M("cgru_shuffled_labels", "conv1d_gru_classifier", "return x + 0.3 * torch.randn(x.shape, generator=gen), labels",
      "return x + 0.3 * torch.randn(x.shape, generator=gen), labels[torch.randperm(labels.numel(), generator=gen)]",
      SHUFFLE, "Labels are shuffled apart from their signals."),
    M("cgru_unscaled_signal", "conv1d_gru_classifier", "return x + 0.3 * torch.randn(x.shape, generator=gen), labels",
      "return 1000 * (x + 0.3 * torch.randn(x.shape, generator=gen)), labels", "batch_sanity",
      "Signals arrive in raw units about 1000x larger than unit scale."),
    # --- tanh_mlp_bce ----------------------------------------------------------------------------------------
    M("tanh_sigmoid_before_bce", "tanh_mlp_bce", "nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))",
      "nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1), nn.Sigmoid())", "loss_at_init",
      "A sigmoid before BCEWithLogitsLoss squashes twice."),
    M("tanh_unscaled_inputs", "tanh_mlp_bce", "return (x - x.mean(0)) / x.std(0), y", "return 100 * x, y",
      "activations", "Inputs 100x too large saturate the tanh layer."),
    M("tanh_shuffled_labels", "tanh_mlp_bce", "y = torch.cat([torch.zeros(half), torch.ones(n - half)]).unsqueeze(1)",
      "y = torch.cat([torch.zeros(half), torch.ones(n - half)])[torch.randperm(n, generator=gen)].unsqueeze(1)",
      SHUFFLE, "Labels are shuffled apart from their points."),
    # --- transformer_encoder_classifier ---------------------------------------------------------------------
    M("tenc_missing_zero_grad", "transformer_encoder_classifier", "    optimizer.zero_grad()\n", "\n",
      "parameter_updates", "train_step never zeroes the gradients."),
    M("tenc_softmax_head", "transformer_encoder_classifier", "return self.classifier(pooled)",
      "return self.classifier(pooled).softmax(-1)", "loss_at_init", "Probabilities are fed to CrossEntropyLoss."),
    M("tenc_positional_dropout_in_eval", "transformer_encoder_classifier",
      "return self.dropout(x + self.pe[:, : x.size(1)])",
      "return torch.nn.functional.dropout(x + self.pe[:, : x.size(1)], 0.1)", "train_eval_modes",
      "Functional dropout without training=self.training stays on in eval mode."),
    # --- wavenet ---------------------------------------------------------------------------------------------
    M("wavenet_centred_padding", "wavenet", "return super().forward(F.pad(x, (self.left, 0)))",
      "return super().forward(F.pad(x, (self.left // 2, self.left - self.left // 2)))", "causality",
      "Padding split over both sides makes the dilated convolutions see future samples."),
    M("wavenet_unshifted_targets", "wavenet", '"batch": (audio[:, :-1], audio[:, 1:]),',
      '"batch": (audio[:, :-1], audio[:, :-1]),', "batch_sanity", "The target is the current sample, not the next."),
    # --- multilabel_bce --------------------------------------------------------------------------------------
    M("ml_sigmoid_before_bce", "multilabel_bce", "nn.Dropout(0.2), nn.Linear(hidden, labels))",
      "nn.Dropout(0.2), nn.Linear(hidden, labels), nn.Sigmoid())", "loss_at_init",
      "A sigmoid before BCEWithLogitsLoss squashes twice."),
    M("ml_bn_batch_stats", "multilabel_bce", "nn.BatchNorm1d(features), nn.Dropout(0.2)",
      "nn.BatchNorm1d(features, track_running_stats=False), nn.Dropout(0.2)", "batch_independence",
      "Input BatchNorm without running statistics uses batch statistics in eval mode."),
    M("ml_shuffled_targets", "multilabel_bce", "return standardise(x), (scores > 0.67).float()",
      "return standardise(x), (scores > 0.67).float()[torch.randperm(COUNT, generator=gen)]", SHUFFLE,
      "Target rows are shuffled apart from their feature rows."),
    M("ml_metric_threshold_on_logits", "multilabel_bce", '"task": "binary",',
      '"task": "binary", "metric": lambda logits, y: ((logits > 0.5).float() == y).float().mean(),', "metric_sanity",
      "The accuracy thresholds logits at 0.5, a probability threshold: a positive predicted with a logit under 0.5 counts as wrong."),
    # --- fcn_segmentation -------------------------------------------------------------------------------------
    M("fcn_metric_transposed", "fcn_segmentation", '"task": "classification",',
      '"task": "classification", "metric": lambda logits, y: (logits.argmax(1).transpose(1, 2) == y)[y != VOID].float().mean(),',
      "metric_sanity", "The pixel accuracy compares (N, W, H) predictions with (N, H, W) masks: labels and predictions in different orders."),
    # --- class_weighted_ce -----------------------------------------------------------------------------------
    M("cw_sum_reduction", "class_weighted_ce", "criterion = nn.CrossEntropyLoss(weight=balanced_weights(y))",
      'criterion = nn.CrossEntropyLoss(weight=balanced_weights(y), reduction="sum")', "loss_at_init",
      "The loss sums over the batch instead of averaging."),
    M("cw_unscaled_features", "class_weighted_ce", "return x[keep], y[keep]", "return 1000 * x[keep], y[keep]",
      "batch_sanity", "Features arrive about 1000x larger than unit scale."),
    M("cw_first_layer_frozen", "class_weighted_ce", "model = nn.Sequential(nn.Linear(FEATURES, 64),",
      "model = nn.Sequential(nn.Linear(FEATURES, 64).requires_grad_(False),", "parameter_updates",
      "The first layer is frozen by mistake."),
    # --- multi_target_regression -----------------------------------------------------------------------------
    M("mtr_single_output_broadcast", "multi_target_regression", "nn.ReLU(), nn.Linear(64, TARGETS))",
      "nn.ReLU(), nn.Linear(64, 1))", "odd_shapes",
      "One output against three targets: MSELoss broadcasts (B, 1) against (B, 3)."),
    M("mtr_sgd_lr_x300", "multi_target_regression", "lr=0.01, momentum=0.9, nesterov=True", "lr=3.0, momentum=0.9, nesterov=True",
      "update_ratio", "SGD at lr 3 (300x): updates larger than the weights."),
    M("mtr_missing_zero_grad", "multi_target_regression", "    optimizer.zero_grad()\n", "\n", "parameter_updates",
      "train_step never zeroes the gradients."),
    M("mtr_shuffled_targets", "multi_target_regression", "return standardise(x), standardise(y)",
      "return standardise(x), standardise(y)[torch.randperm(COUNT, generator=gen)]", SHUFFLE,
      "Target rows are shuffled apart from their feature rows."),
    M("mtr_log_of_features", "multi_target_regression", "        return self.net(x)\n", "        return self.net(x.log())\n",
      "first_nonfinite", "A log transform applied to standardised (partly negative) features makes NaN."),
    # --- tabular_embeddings ----------------------------------------------------------------------------------
    M("tab_shuffled_labels", "tabular_embeddings", "return (x_cat, x_cont), (score > score.median()).long()",
      "return (x_cat, x_cont), (score > score.median()).long()[torch.randperm(COUNT, generator=gen)]", SHUFFLE,
      "Labels are shuffled apart from their rows."),
    M("tab_zero_grad_before_step", "tabular_embeddings", "    optimizer.step()\n", "    optimizer.zero_grad(); optimizer.step()\n",
      "parameter_updates", "zero_grad runs between backward and step."),
    M("tab_embeddings_frozen", "tabular_embeddings", "nn.init.trunc_normal_(e.weight, std=0.01)",
      "nn.init.trunc_normal_(e.weight, std=0.01).requires_grad_(False)", "parameter_updates",
      "The categorical embeddings are frozen by mistake."),
    # --- timeseries_fcn --------------------------------------------------------------------------------------
    M("tsfcn_bn_batch_stats", "timeseries_fcn", "nn.BatchNorm1d(filters[0])",
      "nn.BatchNorm1d(filters[0], track_running_stats=False)", "batch_independence",
      "BatchNorm without running statistics uses batch statistics in eval mode."),
    M("tsfcn_softmax_head", "timeseries_fcn", "return self.fc(x.mean(dim=-1))",
      "return self.fc(x.mean(dim=-1)).softmax(-1)", "loss_at_init", "Probabilities are fed to cross_entropy."),
    M("tsfcn_shuffled_labels", "timeseries_fcn", "return x.unsqueeze(1), labels",
      "return x.unsqueeze(1), labels[torch.randperm(labels.numel(), generator=gen)]", SHUFFLE,
      "Labels are shuffled apart from their series."),
    # --- pointnet ---------------------------------------------------------------------------------------------
    M("pn_flatten_mixes_batch", "pointnet", "x = torch.max(x, 2, keepdim=True)[0].view(-1, 64)",
      "x = torch.max(x, 2, keepdim=True)[0].view(64, -1).t()", "batch_independence",
      "The pooled features are flattened in the wrong order, mixing samples of the batch."),
    M("pn_dropout_in_eval", "pointnet", "x = F.relu(self.bn5(self.dropout(self.fc2(x))))",
      "x = F.relu(self.bn5(F.dropout(self.fc2(x), 0.3)))", "train_eval_modes",
      "Functional dropout without training=self.training stays on in eval mode."),
    M("pn_nll_on_raw_scores", "pointnet", "return F.log_softmax(self.fc3(x), dim=1)", "return self.fc3(x)",
      "loss_at_init", "NLLLoss is given raw scores instead of log-probabilities."),
    # --- bilstm_tagger -----------------------------------------------------------------------------------------
    M("tagger_lstm_not_batch_first", "bilstm_tagger", "nn.LSTM(embed, hidden, batch_first=True, bidirectional=True)",
      "nn.LSTM(embed, hidden, bidirectional=True)", "batch_independence",
      "Without batch_first the LSTM runs across the batch axis of (B, T, E) inputs."),
    # --- kim_cnn_text ------------------------------------------------------------------------------------------
    M("kim_dropout_in_eval", "kim_cnn_text", "return self.fc(self.dropout(torch.cat(pooled, dim=1)))",
      "return self.fc(F.dropout(torch.cat(pooled, dim=1), 0.5))", "train_eval_modes",
      "Functional dropout without training=self.training stays on in eval mode."),
    M("kim_shuffled_labels", "kim_cnn_text", "PAD), labels", "PAD), labels[torch.randperm(labels.numel(), generator=gen)]",
      SHUFFLE, "Labels are shuffled apart from their sentences."),
    # --- gin_graph_classification ------------------------------------------------------------------------------
    M("gin_bn_batch_stats", "gin_graph_classification", "nn.BatchNorm1d(out)", "nn.BatchNorm1d(out, track_running_stats=False)",
      "batch_independence", "BatchNorm without running statistics mixes graphs of the batch in eval mode."),
    M("gin_lr_x100", "gin_graph_classification", "torch.optim.Adam(params, lr=0.01)", "torch.optim.Adam(params, lr=1.0)",
      "update_ratio", "Adam at lr 1: every step moves each weight by about 1."),
    M("gin_shuffled_labels", "gin_graph_classification", "return (x, adj), torch.tensor(labels)",
      "return (x, adj), torch.tensor(labels)[torch.randperm(len(labels), generator=gen)]", SHUFFLE,
      "Labels are shuffled apart from their graphs."),
    # --- vae -----------------------------------------------------------------------------------------------------
    M("vae_samples_in_eval", "vae", "if not self.training:", "if False:", "train_eval_modes",
      "The latent is sampled in eval mode too, so evaluation is random."),
    # --- softmax_regression --------------------------------------------------------------------------------------
    M("sr_softmax_then_ce", "softmax_regression", "nn.Sequential(nn.Flatten(), nn.Linear(FEATURES, NUM_CLASSES))",
      "nn.Sequential(nn.Flatten(), nn.Linear(FEATURES, NUM_CLASSES), nn.Softmax(dim=1))", "loss_at_init",
      "A softmax layer before cross_entropy, which applies log-softmax itself."),
    M("sr_shuffled_labels", "softmax_regression", '"batch": (X, y),',
      '"batch": (X, y[torch.randperm(y.numel(), generator=gen)]),', SHUFFLE, "Labels are shuffled apart from their rows."),
)


def mutated_source(m: Mutation) -> str:
    """The setup's source with the mutation applied (its fragment must occur exactly once)."""
    if m.setup not in SETUPS:
        raise ValueError(f"{m.name}: unknown zoo setup {m.setup!r}")
    source = setup_path(m.setup).read_text(encoding="utf-8")
    count = source.count(m.find)
    if count != 1:
        raise ValueError(f"{m.name}: {m.find!r} occurs {count} times in {m.setup}.py, expected once")
    return source.replace(m.find, m.replace)
