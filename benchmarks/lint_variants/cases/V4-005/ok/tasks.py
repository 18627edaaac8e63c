import torch

TASK_REGISTRY = {}


def register_task(name):
    def wrapper(cls):
        TASK_REGISTRY[name] = cls
        return cls
    return wrapper


class FairseqTask:
    def __init__(self, args, src_dict, tgt_dict):
        self.args = args
        self.src_dict = src_dict
        self.tgt_dict = tgt_dict

    @property
    def target_dictionary(self):
        return self.tgt_dict

    def train_step(self, sample, model, criterion, optimizer, update_num, ignore_grad=False):
        model.train()
        model.set_num_updates(update_num)
        loss, sample_size, logging_output = criterion(model, sample)
        if ignore_grad:
            loss *= 0
        optimizer.backward(loss)
        return loss, sample_size, logging_output

    def valid_step(self, sample, model, criterion):
        model.eval()
        with torch.no_grad():
            loss, sample_size, logging_output = criterion(model, sample)
        return loss, sample_size, logging_output


@register_task("translation")
class TranslationTask(FairseqTask):
    @classmethod
    def setup_task(cls, args, dictionary_loader):
        src_dict = dictionary_loader(f"{args.data}/dict.{args.source_lang}.txt")
        tgt_dict = dictionary_loader(f"{args.data}/dict.{args.target_lang}.txt")
        return cls(args, src_dict, tgt_dict)
