import torch
import torch.nn as nn
import torchvision


class ConsensusModule(nn.Module):
    def __init__(self, consensus_type: str = "avg", dim: int = 1):
        super().__init__()
        self.consensus_type = consensus_type
        self.dim = dim

    def forward(self, x):
        if self.consensus_type == "avg":
            return x.mean(dim=self.dim, keepdim=True)
        if self.consensus_type == "identity":
            return x
        raise ValueError(self.consensus_type)


class TSN(nn.Module):
    def __init__(self, num_class, num_segments, modality="RGB", base_model="resnet50", new_length=None,
                 consensus_type="avg", before_softmax=True, dropout=0.8, partial_bn=True):
        super().__init__()
        self.modality = modality
        self.num_segments = num_segments
        self.before_softmax = before_softmax
        self.dropout = dropout
        self.consensus_type = consensus_type
        self.new_length = new_length or (1 if modality == "RGB" else 5)
        self._prepare_base_model(base_model)
        self._prepare_tsn(num_class)
        if modality == "Flow":
            self._construct_flow_model()
        self.consensus = ConsensusModule(consensus_type)
        if not before_softmax:
            self.softmax = nn.Softmax(dim=1)
        self._enable_pbn = partial_bn

    def _prepare_base_model(self, base_model):
        self.base_model = getattr(torchvision.models, base_model)(weights="IMAGENET1K_V1")
        self.base_model.last_layer_name = "fc"
        self.input_size = 224
        self.input_mean = [0.485, 0.456, 0.406]
        self.input_std = [0.229, 0.224, 0.225]

    def _prepare_tsn(self, num_class):
        feature_dim = self.base_model.fc.in_features
        self.base_model.fc = nn.Dropout(p=self.dropout)
        self.new_fc = nn.Linear(feature_dim, num_class)
        nn.init.normal_(self.new_fc.weight, 0, 0.001)
        nn.init.constant_(self.new_fc.bias, 0)

    def _construct_flow_model(self):
        conv1 = self.base_model.conv1
        kernel = conv1.weight.data.mean(dim=1, keepdim=True).expand(-1, 2 * self.new_length, -1, -1).contiguous()
        new_conv = nn.Conv2d(2 * self.new_length, conv1.out_channels, conv1.kernel_size, conv1.stride,
                             conv1.padding, bias=False)
        new_conv.weight.data = kernel
        self.base_model.conv1 = new_conv
        self.input_mean = [0.5]
        self.input_std = [0.226]

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

    def forward(self, x):
        sample_len = (3 if self.modality == "RGB" else 2) * self.new_length
        base_out = self.base_model(x.view((-1, sample_len) + x.size()[-2:]))
        base_out = self.new_fc(base_out)
        if not self.before_softmax:
            base_out = self.softmax(base_out)
        base_out = base_out.view((-1, self.num_segments) + base_out.size()[1:])
        return self.consensus(base_out).squeeze(1)
