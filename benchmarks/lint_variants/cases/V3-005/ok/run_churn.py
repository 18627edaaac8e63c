import pandas as pd
import torch
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

from nets import TabularNet
from wrapper import KerasModel

df = pd.read_csv("data/churn.csv")
y = df.pop("Exited").values
X = pd.get_dummies(df.drop(columns=["RowNumber", "CustomerId", "Surname"])).values.astype("float32")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)


def to_loader(X, y, shuffle):
    ds = TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y))
    return DataLoader(ds, batch_size=256, shuffle=shuffle)


train_loader, test_loader = to_loader(X_train, y_train, True), to_loader(X_test, y_test, False)
model = KerasModel(TabularNet(X.shape[1]))
model.compile(optimizer="adam", loss="binary_crossentropy", lr=1e-3)
history = model.fit(train_loader, epochs=40, validation_data=test_loader)
probs = model.predict(test_loader).numpy()
print("test AUC:", roc_auc_score(y_test, probs))
