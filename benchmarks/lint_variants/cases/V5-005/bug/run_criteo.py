import numpy as np
import pandas as pd
import torch
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import LabelEncoder

from deepfm import DeepFM

sparse_features = ["C" + str(i) for i in range(1, 27)]
target = ["label"]

if __name__ == "__main__":
    data = pd.read_csv("./criteo_sample.txt")
    data[sparse_features] = data[sparse_features].fillna("-1")
    for feat in sparse_features:
        data[feat] = LabelEncoder().fit_transform(data[feat])
    field_dims = [int(data[f].max()) + 1 for f in sparse_features]
    split = int(len(data) * 0.8)
    train, test = data.iloc[:split], data.iloc[split:]
    x_train, y_train = train[sparse_features].values, train[target].values.ravel()
    x_test, y_test = test[sparse_features].values, test[target].values.ravel()
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    model = DeepFM(field_dims).to(device)
    model.compile("adam", "binary_crossentropy", metrics=["auc"])
    model.fit(x_train, y_train.astype(np.float32), batch_size=256, epochs=10, validation_data=(x_test, y_test))
    pred_ans = model.predict(x_test, 256)
    print("test AUC", round(roc_auc_score(y_test, pred_ans), 4))
