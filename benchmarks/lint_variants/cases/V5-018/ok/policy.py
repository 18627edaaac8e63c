import torch
import torch.nn as nn


class MLPPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=256, n_layers=3, dropout=0.1, max_action=1.0):
        super().__init__()
        layers, d = [], obs_dim
        for _ in range(n_layers):
            layers += [nn.Linear(d, hidden), nn.LayerNorm(hidden), nn.ReLU(), nn.Dropout(dropout)]
            d = hidden
        self.net = nn.Sequential(*layers)
        self.mu = nn.Linear(hidden, act_dim)
        self.max_action = max_action

    def forward(self, obs):
        return self.max_action * torch.tanh(self.mu(self.net(obs)))

    @torch.no_grad()
    def act(self, obs, device):
        obs = torch.as_tensor(obs, dtype=torch.float32, device=device).unsqueeze(0)
        return self(obs).cpu().numpy()[0]
