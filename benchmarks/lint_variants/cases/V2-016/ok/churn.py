import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

from keras_like import Model
from losses import binary_accuracy, weighted_binary_crossentropy


class ChurnNet(Model):
    def __init__(self, n_features):
        super().__init__()
        self.dense1 = nn.Linear(n_features, 64)
        self.dropout = nn.Dropout(0.3)
        self.dense2 = nn.Linear(64, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        x = torch.relu(self.dense1(x))
        x = self.dropout(x)
        x = torch.relu(self.dense2(x))
        return torch.sigmoid(self.out(x))


df = pd.read_csv("Churn_Modelling.csv")
X = pd.get_dummies(df.drop(columns=["RowNumber", "CustomerId", "Surname", "Exited"]), drop_first=True)
y = df["Exited"].values.astype(np.float32)
X_train, X_test, y_train, y_test = train_test_split(X.values.astype(np.float32), y, test_size=0.2,
                                                    random_state=42, stratify=y)
scaler = StandardScaler()
X_train = scaler.fit_transform(X_train).astype(np.float32)
X_test = scaler.transform(X_test).astype(np.float32)

train_loader = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train).unsqueeze(1)),
                          batch_size=32, shuffle=True)
test_loader = DataLoader(TensorDataset(torch.from_numpy(X_test), torch.from_numpy(y_test).unsqueeze(1)),
                         batch_size=256)

model = ChurnNet(X_train.shape[1])
pos_weight = float((y_train == 0).sum() / (y_train == 1).sum())
model.compile(optimizer=torch.optim.Adam(model.parameters(), lr=1e-3),
              loss=weighted_binary_crossentropy(pos_weight),
              metrics={"accuracy": binary_accuracy},
              device="cuda" if torch.cuda.is_available() else "cpu")
history = model.fit(train_loader, epochs=100, validation_data=test_loader)
torch.save(model.state_dict(), "churn_model.pt")
