import torch.nn as nn
import torchvision

from ops import ConsensusModule, Identity


class TSN(nn.Module):
    def __init__(self, num_class, num_segments, base_model="resnet50", consensus_type="avg", dropout=0.8,
                 partial_bn=True):
        super().__init__()
        self.num_segments = num_segments
        self.dropout = dropout
        self._enable_pbn = partial_bn
        self._prepare_base_model(base_model)
        feature_dim = self.base_model.fc.in_features
        self.base_model.fc = Identity()
        self.new_fc = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(feature_dim, num_class))
        nn.init.normal_(self.new_fc[1].weight, 0, 0.001)
        nn.init.constant_(self.new_fc[1].bias, 0)
        self.consensus = ConsensusModule(consensus_type)

    def _prepare_base_model(self, base_model):
        if base_model == "resnet50":
            self.base_model = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V2)
        elif base_model == "resnet18":
            self.base_model = torchvision.models.resnet18(weights=torchvision.models.ResNet18_Weights.DEFAULT)
        else:
            raise ValueError(f"unknown base model {base_model}")
        self.input_size = 224
        self.input_mean = [0.485, 0.456, 0.406]
        self.input_std = [0.229, 0.224, 0.225]

    def train(self, mode=True):
        super().train(mode)
        if self._enable_pbn and mode:
            count = 0
            for m in self.base_model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    count += 1
                    if count >= 2:
                        m.eval()
                        m.weight.requires_grad_(False)
                        m.bias.requires_grad_(False)
        return self

    def get_optim_policies(self, lr, weight_decay):
        base = [p for p in self.base_model.parameters() if p.requires_grad]
        head = list(self.new_fc.parameters())
        return [{"params": base, "lr": lr, "weight_decay": weight_decay},
                {"params": head, "lr": lr * 5, "weight_decay": weight_decay}]

    def forward(self, x):
        b, t, c, h, w = x.shape
        base_out = self.new_fc(self.base_model(x.view(b * t, c, h, w)))
        base_out = base_out.view(b, t, -1)
        return self.consensus(base_out).squeeze(1)
