import torch
import torch.nn as nn
import torchvision

BN_MOMENTUM = 0.1


class PoseResNet(nn.Module):
    """SimpleBaseline: ResNet backbone + 3 deconvolution layers + 1x1 heatmap head."""

    def __init__(self, num_joints=17, depth=50, deconv_filters=(256, 256, 256), final_dropout=0.0):
        super().__init__()
        resnet = getattr(torchvision.models, f"resnet{depth}")(weights=None)
        self.backbone = nn.Sequential(resnet.conv1, resnet.bn1, resnet.relu, resnet.maxpool,
                                      resnet.layer1, resnet.layer2, resnet.layer3, resnet.layer4)
        self.inplanes = resnet.fc.in_features
        self.deconv_layers = self._make_deconv_layer(deconv_filters)
        self.dropout = nn.Dropout2d(final_dropout) if final_dropout > 0 else nn.Identity()
        self.final_layer = nn.Conv2d(deconv_filters[-1], num_joints, kernel_size=1)

    def _make_deconv_layer(self, filters):
        layers = []
        for planes in filters:
            layers += [
                nn.ConvTranspose2d(self.inplanes, planes, 4, stride=2, padding=1, output_padding=0, bias=False),
                nn.BatchNorm2d(planes, momentum=BN_MOMENTUM),
                nn.ReLU(inplace=True),
            ]
            self.inplanes = planes
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.deconv_layers(self.backbone(x))
        return self.final_layer(self.dropout(x))

    def init_weights(self, pretrained=""):
        for m in self.deconv_layers.modules():
            if isinstance(m, nn.ConvTranspose2d):
                nn.init.normal_(m.weight, std=0.001)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        nn.init.normal_(self.final_layer.weight, std=0.001)
        nn.init.constant_(self.final_layer.bias, 0)
        if pretrained:
            state = torch.load(pretrained, map_location="cpu")
            self.load_state_dict(state.get("state_dict", state), strict=False)


def get_pose_net(cfg):
    model = PoseResNet(cfg["num_joints"], cfg.get("depth", 50), final_dropout=cfg.get("final_dropout", 0.0))
    model.init_weights(cfg.get("pretrained", ""))
    return model
