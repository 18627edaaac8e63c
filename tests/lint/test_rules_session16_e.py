"""False-alarm families of MLD040 (view as transpose) and MLD041 (squeeze without a dim) from the stratified precision
sample of the sixteenth session: each quiet shape beside a twin that still fires."""

from __future__ import annotations

import textwrap

from .families import line_of, snippet_lines


def _lines(source: str, code: str) -> list[int]:
    return snippet_lines(textwrap.dedent(source), code)


QUANTISER = """
    import torch.nn as nn

    class Quantiser(nn.Module):
        def __init__(self, dim, groups, num_vars):
            super().__init__()
            self.groups = groups
            self.weight_proj = nn.Linear(dim, groups * num_vars)

        def forward(self, x):
            bsz, tsz, fsz = x.shape
            x = x.reshape(-1, fsz)
            x = self.weight_proj(x)
            x = x.view(bsz * tsz * self.groups, -1)
            _, k = x.max(-1)
            return x.view({split}, -1), k
"""


def test_a_view_cutting_the_leading_axis_where_an_earlier_view_joined_it_is_quiet():
    """speechbrain/nnet/quantisers.py: `x.view(bsz * tsz * groups, -1)`, then `x.view(bsz * tsz, groups, -1)`."""
    assert _lines(QUANTISER.format(split="bsz * tsz, self.groups"), "MLD040") == []


def test_the_same_factors_cut_in_another_order_still_fire():
    source = QUANTISER.format(split="bsz * self.groups, tsz")
    assert _lines(source, "MLD040") == [line_of(source, "return x.view")]


DECODER = """
    import torch.nn as nn

    class Decoder(nn.Module):
        def __init__(self, embedding, hidden_dim):
            super().__init__()
            self.embedding = embedding
            self.hidden_dim = hidden_dim
            self.projection_layer = nn.Linear(embedding.out_dim, hidden_dim)

        def forward(self, batch):
            options = batch["answer_options"]
            max_seq_len = options.size(-1)
            batch_size, ndialogues, noptions, seq_len = options.size()
            options = options.view(-1, max_seq_len)
            options = self.embedding(options)
            options = self.projection_layer(options)
            return options.view({split}, self.hidden_dim)
"""


def test_a_flatten_to_minus_one_split_back_into_the_unpacked_sizes_is_quiet():
    """mmf/modules/decoders.py: `view(-1, max_seq_len)`, two layers, then `view(B * D, noptions, hidden)`."""
    assert _lines(DECODER.format(split="batch_size * ndialogues, noptions"), "MLD040") == []


def test_a_flatten_to_minus_one_split_in_another_order_still_fires():
    source = DECODER.format(split="batch_size * noptions, ndialogues")
    assert _lines(source, "MLD040") == [line_of(source, "return options.view")]


MASK_NET = """
    import torch.nn as nn
    import speechbrain as sb

    class MaskNet(nn.Module):
        def __init__(self, B, C, N):
            super().__init__()
            self.C = C
            self.mask_conv1x1 = {conv}

        def forward(self, y):
            M, K, N = y.size()
            score = self.mask_conv1x1(y)
            return score.contiguous().reshape(M, K, self.C, N)
"""


def test_a_conv_of_another_library_is_not_read_as_channels_first():
    """speechbrain/lobes/models/conv_tasnet.py: `sb.nnet.CNN.Conv1d` takes and returns (batch, time, channels)."""
    conv = "sb.nnet.CNN.Conv1d(in_channels=B, out_channels=C * N, kernel_size=1, bias=False)"
    assert _lines(MASK_NET.format(conv=conv), "MLD040") == []


def test_a_torch_conv_and_a_local_subclass_of_one_still_fire():
    source = MASK_NET.format(conv="nn.Conv1d(B, C * N, 1, bias=False)")
    assert _lines(source, "MLD040") == [line_of(source, ".reshape(")]
    subclass = MASK_NET.replace("class MaskNet", "class Conv1d(nn.Conv1d):\n        pass\n\n    class MaskNet")
    source = subclass.format(conv="Conv1d(B, C * N, 1, bias=False)")
    assert _lines(source, "MLD040") == [line_of(source, ".reshape(")]


PATCH_EMBED = """
    import torch.nn as nn

    class PatchEmbed(nn.Module):
        def __init__(self, patch_size, temporal_patch_size, in_channels, embed_dim):
            super().__init__()
            self.patch_size = patch_size
            self.temporal_patch_size = temporal_patch_size
            self.in_channels = in_channels
            self.embed_dim = embed_dim
            kernel_size = [temporal_patch_size, patch_size, patch_size]
            self.proj = nn.Conv3d(in_channels, embed_dim, kernel_size=kernel_size, stride=kernel_size, bias=False)

        def forward(self, x):
            dtype = self.proj.weight.dtype
            x = x.view(-1, self.in_channels, self.temporal_patch_size, {patch}, {patch})
            return self.proj(x.to(dtype=dtype)).view(-1, self.embed_dim)
"""


def test_a_conv_run_on_one_window_of_its_kernel_has_no_positions_to_mix():
    """VeOmni's Qwen vision patch embedding: input viewed to one (tp, p, p) patch, output (N, d, 1, 1, 1)."""
    assert _lines(PATCH_EMBED.format(patch="self.patch_size"), "MLD040") == []


def test_a_conv_run_on_a_larger_input_still_fires():
    source = PATCH_EMBED.format(patch="2 * self.patch_size")
    assert _lines(source, "MLD040") == [line_of(source, "return self.proj")]


POOLED = """
    import torch.nn as nn
    import torch.nn.functional as F

    class NonLocal(nn.Module):
        def __init__(self, groups, block_size):
            super().__init__()
            self.groups, self.block_size = groups, block_size
            self.conv_p = nn.Conv2d(groups, block_size * block_size * groups, kernel_size=(block_size, 1))

        def forward(self, out):
            B = out.shape[0]
            rp = F.adaptive_max_pool2d(out, (self.block_size, {width}))
            return self.conv_p(rp).view(B, self.groups, self.block_size, self.block_size)
"""


def test_a_conv_on_an_input_pooled_to_its_kernel_size_is_quiet_and_a_wider_one_fires():
    """timm/layers/non_local_attn.py: `adaptive_max_pool2d(out, (block_size, 1))` into a (block_size, 1) kernel."""
    assert _lines(POOLED.format(width="1"), "MLD040") == []
    source = POOLED.format(width="2")
    assert _lines(source, "MLD040") == [line_of(source, "return self.conv_p")]


COLLATE = """
    import torch

    def collate(inputs):
        labels = []
        for sample in inputs:
            labels.append(sample[-1].reshape(sample[-1].shape[1], sample[-1].shape[0])[0])
        return {made}
"""


def test_a_swapped_row_read_as_one_number_swaps_an_axis_of_one():
    """MultiBench datasets/affect/get_data.py: `torch.tensor(labels)` converts one-element rows only."""
    assert _lines(COLLATE.format(made="torch.tensor(labels).view(len(inputs), 1)"), "MLD040") == []


def test_a_swapped_row_stacked_as_a_tensor_still_fires():
    source = COLLATE.format(made="torch.stack(labels)")
    assert _lines(source, "MLD040") == [line_of(source, ".reshape(")]


def test_a_swap_next_to_a_literal_one_stays_quiet():
    source = """
        import torch

        def unit(n):
            x = torch.zeros(1, n)
            return x.view(n, 1)
    """
    assert _lines(source, "MLD040") == []


DAGNN = """
    import dgl
    import dgl.function as fn
    import torch
    from torch import nn

    class DAGNNConv(nn.Module):
        def __init__(self, in_dim, k):
            super().__init__()
            self.s = nn.Parameter(torch.FloatTensor(in_dim, 1))
            self.k = k

        def forward(self, graph, feats):
            with graph.local_scope():
                results = [feats]
                for _ in range(self.k):
                    graph.ndata["h"] = feats
                    graph.update_all(fn.copy_u("h", "m"), fn.sum("m", "h"))
                    feats = graph.ndata["h"]
                    results.append(feats)
                H = torch.stack(results, dim=1)
                S = torch.sigmoid(torch.matmul(H, self.s)).permute(0, 2, 1)
                {readout}
                return torch.matmul(S, H).squeeze()
"""


def test_a_squeeze_over_a_graphs_nodes_is_quiet():
    """dgl examples/pytorch/dagnn/main.py: (num_nodes, 1, d) squeezed in a forward that reads the graph."""
    assert _lines(DAGNN.format(readout="pass"), "MLD041") == []


def test_a_squeeze_after_a_readout_or_a_reshape_per_graph_still_fires():
    source = DAGNN.format(readout='hg = dgl.mean_nodes(graph, "h")')
    assert _lines(source, "MLD041") == [line_of(source, "squeeze()")]
    source = DAGNN.format(readout="H = H.reshape(graph.batch_size, -1, H.shape[-1])")
    assert _lines(source, "MLD041") == [line_of(source, "squeeze()")]


DISCRIMINATOR = """
    import torch
    from dgl import DGLGraph
    from dgl.nn import GraphConv

    class Discriminator(torch.nn.Module):
        def __init__(self, feat_dim):
            super().__init__()
            self.affine = torch.nn.Bilinear(feat_dim, feat_dim, 1)

        def forward(self, h_x, h_pos):
            score = self.affine(h_pos, h_x).squeeze()
            return score

    class IndexSelect(torch.nn.Module):
        def __init__(self, hidden_dim):
            super().__init__()
            self.discriminator = Discriminator(hidden_dim)
            self.gcn = {layer}

        def forward(self, graph{annotation}, h_pos):
            embed = self.gcn({inputs})
            return torch.sigmoid(self.discriminator(torch.sigmoid(embed), h_pos))
"""


def test_a_squeeze_in_a_layer_built_only_for_a_graph_forward_is_quiet():
    """dgl examples/pytorch/gxn/layers.py: Discriminator, run by IndexSelect.forward(graph: DGLGraph, ...) on nodes."""
    source = DISCRIMINATOR.format(layer="GraphConv(hidden_dim, hidden_dim)", annotation=": DGLGraph",
                                  inputs="graph, h_pos")
    assert _lines(source, "MLD041") == []


def test_the_same_layer_under_a_forward_without_a_graph_still_fires():
    source = DISCRIMINATOR.format(layer="torch.nn.Linear(hidden_dim, hidden_dim)", annotation="", inputs="h_pos")
    assert _lines(source, "MLD041") == [line_of(source, ".squeeze()")]


NODE_LABELS = """
    import torch.nn.functional as F
    from pytorch_lightning import LightningModule

    class SAGE(LightningModule):
        def training_step(self, batch, batch_idx):
            input_nodes, output_nodes, blocks = batch
            y = blocks[-1].dstdata["label"]
            return F.cross_entropy(self(blocks, blocks[0].srcdata["feat"]), y)

    def load(dataset):
        graph, labels = dataset[0]
        {store} = labels.squeeze()
        return graph
"""


def test_a_graphs_whole_label_column_squeezed_once_is_quiet():
    """dgl examples/pytorch/graphsage/lightning/node_classification.py: `graph.ndata["label"] = labels.squeeze()`."""
    assert _lines(NODE_LABELS.format(store='graph.ndata["label"]'), "MLD041") == []


def test_labels_squeezed_into_a_batch_under_the_same_key_still_fire():
    source = NODE_LABELS.format(store='graph["label"]')
    assert _lines(source, "MLD041") == [line_of(source, ".squeeze()")]


INVERTIBLE_CONV = """
    import torch

    class Invertible1x1Conv(torch.nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = torch.nn.Conv1d(c, c, kernel_size=1, stride=1, padding=0, bias=False)

        def forward(self, z):
            batch_size, group_size, n_of_groups = z.size()
            W = self.conv.weight.squeeze()
            log_det_W = batch_size * n_of_groups * torch.logdet({matrix}.unsqueeze(0).float()).squeeze()
            return self.conv(z), log_det_W
"""


def test_a_squeeze_of_a_weight_and_of_its_log_determinant_is_quiet():
    """NVIDIA Tacotron2 waveglow/model.py: `torch.logdet(W.unsqueeze(0)).squeeze()` of the 1x1 conv's weight."""
    assert _lines(INVERTIBLE_CONV.format(matrix="W"), "MLD041") == []


def test_the_same_squeeze_of_a_value_computed_from_the_input_still_fires():
    source = INVERTIBLE_CONV.format(matrix="(W + z.mean(0).mean(-1))")
    assert _lines(source, "MLD041") == [line_of(source, "log_det_W =")]


def test_a_squeeze_of_an_attribute_set_in_forward_still_fires():
    """RecBole's MKR: `self.scores = torch.squeeze(self.rs_pred_mlp(self.user_item_concat))`, set from the batch."""
    source = """
        import torch
        import torch.nn as nn

        class MKR(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.rs_pred_mlp = nn.Linear(2 * d, 1)
                self.user_mlp = nn.Linear(d, d)

            def forward(self, users, items):
                self.user_item_concat = torch.cat([self.user_mlp(users), items], 1)
                self.scores = torch.squeeze(self.rs_pred_mlp(self.user_item_concat))
                return self.scores
    """
    assert _lines(source, "MLD041") == [line_of(source, "torch.squeeze(")]
