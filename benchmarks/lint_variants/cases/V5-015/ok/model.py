import torch
import torch.nn as nn
from transformers import AutoConfig, AutoModel


class CFG:
    model_name = "roberta-base"
    max_len = 248
    batch_size = 16
    lr = 2e-5
    epochs = 3
    eval_steps = 40
    n_fold = 5
    seed = 42
    output_dir = "./output"


class AttentionHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.W = nn.Linear(hidden, 512)
        self.V = nn.Linear(512, 1)

    def forward(self, features):
        score = self.V(torch.tanh(self.W(features)))
        weights = torch.softmax(score, dim=1)
        return torch.sum(weights * features, dim=1)


class CommonLitModel(nn.Module):
    def __init__(self):
        super().__init__()
        config = AutoConfig.from_pretrained(CFG.model_name)
        config.update({"hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1})
        self.roberta = AutoModel.from_pretrained(CFG.model_name, config=config)
        self.head = AttentionHead(config.hidden_size)
        self.dropout = nn.Dropout(0.1)
        self.regressor = nn.Linear(config.hidden_size, 1)

    def forward(self, input_ids, attention_mask):
        hidden = self.roberta(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return self.regressor(self.dropout(self.head(hidden)))
