import timm
import torch.nn as nn


class LeafClassifier(nn.Module):
    def __init__(self, arch, num_classes=5, pretrained=False, drop_rate=0.3):
        super().__init__()
        self.backbone = timm.create_model(arch, pretrained=pretrained, num_classes=0)
        self.dropout = nn.Dropout(drop_rate)
        self.fc = nn.Linear(self.backbone.num_features, num_classes)

    def forward(self, x):
        return self.fc(self.dropout(self.backbone(x)))


def build_model(arch, checkpoint=None, device="cuda", num_classes=5):
    model = LeafClassifier(arch, num_classes=num_classes)
    if checkpoint is not None:
        import torch
        state = torch.load(checkpoint, map_location="cpu")
        state = state.get("state_dict", state)
        model.load_state_dict({k.replace("module.", ""): v for k, v in state.items()})
    model = model.to(device)
    if torch_cuda_count() > 1:
        model = nn.DataParallel(model)
    return model


def torch_cuda_count():
    import torch
    return torch.cuda.device_count()
