"""False-alarm families of MLD061 (log-without-clamp) and MLD060 (log-of-softmax) judged on the sixteenth session's
stratified sample of the 500 repositories' findings: each quiet shape beside a twin that still fires."""

from __future__ import annotations

import textwrap

from .families import snippet_lines


def _lines(source: str, code: str) -> list[int]:
    return snippet_lines(textwrap.dedent(source), code)


BEAM_SEARCH = """
    import torch

    def {name}(model, encoder_out, beam=4):
        hyps = [[0]]
        scores = torch.zeros(1, 1)
        for t in range(encoder_out.size(1)):
            logits = model.joiner(encoder_out[:, t], model.decoder(torch.tensor(hyps)))
            probs = logits.softmax(dim=-1)
            log_probs = probs.log()
            probs = probs.reshape(-1)
            log_probs.add_(scores)
            vocab_size = log_probs.size(-1)
            log_probs = log_probs.reshape(-1)
            {use}
        return hyps
"""
RANKED = """topk_log_probs, topk_indexes = log_probs.topk(beam)
            scores = topk_log_probs.reshape(-1, 1)
            hyps = [[int(i % vocab_size)] for i in topk_indexes.tolist()]"""


def test_a_log_that_only_ranks_in_a_beam_search_is_quiet():
    """icefall's pruned_transducer_stateless2/beam_search.py keywords_search: `probs.log()`, then `topk(beam)`."""
    assert _lines(BEAM_SEARCH.format(name="keywords_search", use=RANKED), "MLD061") == []


def test_the_same_log_in_a_function_not_named_for_a_search_still_fires():
    assert _lines(BEAM_SEARCH.format(name="step", use=RANKED), "MLD061") == [10]


def test_a_beam_search_log_multiplied_by_the_probabilities_still_fires():
    entropy = "scores = -(probs * log_probs).sum().reshape(1, 1)\n            hyps = hyps + [[0]]"
    assert _lines(BEAM_SEARCH.format(name="keywords_search", use=entropy), "MLD061") == [10]


UNDER_NO_GRAD = """
    import torch

    @torch.no_grad()
    def rank_tokens(model, x):
        probs = model(x).softmax(dim=-1)
        scores = probs.log()
        {use}
        return probs, best
"""


def test_a_log_that_only_ranks_under_no_grad_is_quiet():
    """The same evidence through a no_grad decorator instead of a search's name (icefall's decode scripts)."""
    assert _lines(UNDER_NO_GRAD.format(use="best = scores.argmax(-1)"), "MLD061") == []


def test_a_log_averaged_into_a_metric_under_no_grad_still_fires():
    """laplace-redux utils/test.py: a metric of logged probabilities is infinite on a zero, gradient or not."""
    use = "best = scores.argmax(-1)\n        nll = -scores.mean()"
    assert _lines(UNDER_NO_GRAD.format(use=use), "MLD061") == [7]


VITERBI = """
    import torch
    import torch.nn.functional as F

    @torch.jit.script
    def {name}(unary: torch.Tensor, trans: torch.Tensor, start_idx: int):
        num_tags: int = unary.size(1)
        alphas = torch.full((num_tags,), -1e4)
        alphas[start_idx] = 0.0
        alphas = torch.log(F.softmax(alphas.unsqueeze(0), dim=-1))
        backpointers = []
        for i in range(unary.size(0)):
            {use}
        return backpointers, alphas
"""
DECODED = """viterbi, best_tag_ids = torch.max(alphas + trans, 1)
            backpointers.append(best_tag_ids)
            alphas = (viterbi + unary[i]).unsqueeze(0)"""


def test_a_log_of_softmax_in_a_viterbi_decoder_is_quiet():
    """mead-baseline layers/eight_mile/pytorch/layers.py script_viterbi_log_softmax_norm: the -inf only loses a max."""
    assert _lines(VITERBI.format(name="script_viterbi_log_softmax_norm", use=DECODED), "MLD060") == []


def test_a_log_of_softmax_in_a_crf_forward_or_summed_in_the_decoder_still_fires():
    assert _lines(VITERBI.format(name="forward_algorithm", use=DECODED), "MLD060") == [10]
    summed = DECODED + "\n            backpointers.append(alphas.sum())"
    assert _lines(VITERBI.format(name="script_viterbi_log_softmax_norm", use=summed), "MLD060") == [10]


GREEDY_SEARCH = """
    import torch

    class GreedySearch:
        def select_paths(self, logprobs, prior_scores):
            tok_scores, tok_ids = logprobs.max(1)
            best_scores = tok_scores + prior_scores
            token_details = None
            if self.verbose:
                tok_logprob = {log}
                token_details = [{{"token_logprob": tok_logprob, "token_rank": 0}}]
            return tok_ids, best_scores, token_details
"""


def test_the_log_of_the_argmax_probability_shown_as_a_number_is_quiet():
    """ParlAI parlai/core/torch_generator_agent.py GreedySearch.select_paths: the argmax token's log-probability."""
    source = GREEDY_SEARCH.format(log="torch.softmax(logprobs.view(-1), dim=-1)[tok_ids].log().item()")
    assert _lines(source, "MLD061") == []
    assert _lines(source, "MLD060") == []


def test_a_sampled_probability_logged_into_a_number_for_display_is_quiet():
    """ParlAI TopKSampling.select_paths: `probs[hyp_ids, choices].log().view(-1).cpu().numpy()` shown per token."""
    source = """
        import torch

        def select_paths(logprobs, k, verbose):
            values, indices = logprobs.topk(k, dim=-1)
            probs = torch.softmax(values, dim=-1)
            choices = torch.multinomial(probs, 1)[:, 0]
            hyp_ids = torch.arange(logprobs.size(0))
            details = []
            if verbose:
                tok_logprobs = probs[hyp_ids, choices].log().view(-1).cpu().numpy()
                for tok_logprob in tok_logprobs:
                    details.append({"token_logprob": tok_logprob})
            return indices[hyp_ids, choices], details
    """
    assert _lines(source, "MLD061") == []


def test_a_logged_probability_averaged_before_it_becomes_a_number_still_fires():
    source = """
        import torch

        def evaluate(z, y):
            probs = z.softmax(-1)
            return -probs[torch.arange(len(y)), y].log().mean().item()
    """
    assert _lines(source, "MLD061") == [6]


def test_a_number_summed_after_the_log_still_fires():
    source = """
        import torch

        def evaluate(z, y):
            probs = z.softmax(-1)
            logged = probs[torch.arange(len(y)), y].log().cpu().numpy()
            return -logged.sum()
    """
    assert _lines(source, "MLD061") == [6]


PICKED = """
    import torch
    import torch.nn.functional as F

    def confidence_loss(z, y):
        p = F.softmax(z, dim=1)
        {pick}
        return -torch.log(p[torch.arange(z.size(0)), i]).mean()
"""


def test_a_softmax_probability_picked_at_its_argmax_is_quiet():
    """ParlAI GreedySearch's argmax token, in a loss: the largest of V probabilities is at least 1/V."""
    assert _lines(PICKED.format(pick="_, i = z.max(1)"), "MLD061") == []
    assert _lines(PICKED.format(pick="i = p.argmax(1)"), "MLD061") == []


def test_a_softmax_probability_picked_at_the_label_still_fires():
    assert _lines(PICKED.format(pick="i = y"), "MLD061") == [8]


def test_the_log_of_a_softplus_std_in_a_gaussian_likelihood_still_fires():
    """hyena-dna src/tasks/metrics.py gaussian_ll_loss: softplus is exactly 0 below about -100, as in DeepRL's
    maintainer-fixed `std = F.softplus(x + 1e-5)` then `std.log()` (corpus case b-log-003)."""
    source = """
        import math
        import torch
        import torch.nn.functional as F

        def gaussian_ll_loss(outs, y):
            mu, sigma = outs[..., 0], outs[..., 1]
            sigma = F.softplus(sigma)
            ll = -1.0 * (torch.log(sigma) + 0.5 * math.log(2 * math.pi) + 0.5 * torch.square((y - mu) / sigma))
            return -ll.mean()
    """
    assert _lines(source, "MLD061") == [9]
