import math

import torch.nn.functional as F

CRITERION_REGISTRY = {}


def register_criterion(name):
    def wrapper(cls):
        CRITERION_REGISTRY[name] = cls
        return cls
    return wrapper


class BaseCriterion:
    def __init__(self, task):
        self.task = task
        self.padding_idx = task.target_dictionary.pad()

    @classmethod
    def build_criterion(cls, args, task):
        return cls(task)


@register_criterion("cross_entropy")
class CrossEntropyCriterion(BaseCriterion):
    def __call__(self, model, sample, reduce=True):
        net_output = model(**sample["net_input"])
        loss = self.compute_loss(model, net_output, sample, reduce=reduce)
        sample_size = sample["ntokens"]
        logging_output = {
            "loss": loss.data,
            "ntokens": sample["ntokens"],
            "nsentences": sample["target"].size(0),
            "sample_size": sample_size,
        }
        return loss, sample_size, logging_output

    def compute_loss(self, model, net_output, sample, reduce=True):
        lprobs = model.get_normalized_probs(net_output, log_probs=True)
        lprobs = lprobs.view(-1, lprobs.size(-1))
        target = model.get_targets(sample, net_output).view(-1)
        loss = F.cross_entropy(
            lprobs,
            target,
            ignore_index=self.padding_idx,
            reduction="sum" if reduce else "none",
        )
        return loss

    @staticmethod
    def reduce_metrics(logging_outputs):
        loss_sum = sum(log.get("loss", 0) for log in logging_outputs)
        ntokens = sum(log.get("ntokens", 0) for log in logging_outputs)
        return {"loss": loss_sum / ntokens / math.log(2), "ntokens": ntokens}
