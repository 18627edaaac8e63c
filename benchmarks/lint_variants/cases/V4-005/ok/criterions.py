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


@register_criterion("label_smoothed_cross_entropy")
class LabelSmoothedCrossEntropyCriterion(BaseCriterion):
    def __init__(self, task, label_smoothing=0.1):
        super().__init__(task)
        self.eps = label_smoothing

    def __call__(self, model, sample, reduce=True):
        net_output = model(**sample["net_input"])
        lprobs = F.log_softmax(net_output, dim=-1).view(-1, net_output.size(-1))
        target = sample["target"].view(-1)
        loss = F.nll_loss(lprobs, target, ignore_index=self.padding_idx,
                          reduction="sum" if reduce else "none")
        smooth = -lprobs.sum(dim=-1)[target.ne(self.padding_idx)].sum()
        loss = (1.0 - self.eps) * loss + self.eps / lprobs.size(-1) * smooth
        sample_size = sample["ntokens"]
        logging_output = {
            "loss": loss.data,
            "ntokens": sample["ntokens"],
            "sample_size": sample_size,
        }
        return loss, sample_size, logging_output

    @staticmethod
    def reduce_metrics(logging_outputs):
        loss_sum = sum(log["loss"] for log in logging_outputs)
        sample_size = sum(log["sample_size"] for log in logging_outputs)
        return {"loss": float(loss_sum) / sample_size / math.log(2)}
