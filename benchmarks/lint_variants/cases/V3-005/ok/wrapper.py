import torch
import torch.nn as nn

LOSSES = {
    "mse": nn.MSELoss,
    "categorical_crossentropy": nn.CrossEntropyLoss,
    "binary_crossentropy": nn.BCEWithLogitsLoss,
}


class KerasModel:
    """Minimal Keras-style fit/evaluate/predict around an nn.Module."""

    def __init__(self, net, device=None):
        self.net = net
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.net.to(self.device)
        self.history = {"loss": [], "val_loss": []}

    def compile(self, optimizer="adam", loss="binary_crossentropy", lr=1e-3):
        self.loss_fn = LOSSES[loss]()
        if optimizer == "adam":
            self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)
        else:
            self.optimizer = torch.optim.SGD(self.net.parameters(), lr=lr, momentum=0.9)

    def predict_on_batch(self, x):
        logits = self.net(x.to(self.device))
        return torch.sigmoid(logits).squeeze(-1)

    def train_on_batch(self, x, y):
        self.net.train()
        y_pred = self.net(x.to(self.device)).squeeze(-1)
        loss = self.loss_fn(y_pred, y.to(self.device).float())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, loader):
        self.net.eval()
        losses = [self.loss_fn(self.net(x.to(self.device)).squeeze(-1), y.to(self.device).float()).item()
                  for x, y in loader]
        return sum(losses) / max(len(losses), 1)

    @torch.no_grad()
    def predict(self, loader):
        self.net.eval()
        return torch.cat([self.predict_on_batch(x).cpu() for x, _ in loader])

    def fit(self, train_loader, epochs=1, validation_data=None, verbose=1):
        for epoch in range(epochs):
            batch_losses = [self.train_on_batch(x, y) for x, y in train_loader]
            self.history["loss"].append(sum(batch_losses) / len(batch_losses))
            if validation_data is not None:
                self.history["val_loss"].append(self.evaluate(validation_data))
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs} - loss: {self.history['loss'][-1]:.4f}"
                      + (f" - val_loss: {self.history['val_loss'][-1]:.4f}" if validation_data else ""))
        return self.history
