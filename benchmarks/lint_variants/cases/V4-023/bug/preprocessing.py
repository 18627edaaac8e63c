import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler


def create_sequences(data, lookback):
    xs, ys = [], []
    for i in range(len(data) - lookback):
        xs.append(data[i:i + lookback])
        ys.append(data[i + lookback, 0])
    return np.array(xs, dtype=np.float32), np.array(ys, dtype=np.float32)


def prepare_data(csv_path, features=("Close", "Open", "High", "Low", "Volume"), lookback=60, train_ratio=0.8):
    df = pd.read_csv(csv_path, parse_dates=["Date"]).sort_values("Date")
    values = df[list(features)].values.astype(np.float64)

    split = int(len(values) * train_ratio)
    scaler = MinMaxScaler(feature_range=(0, 1))
    scaled = scaler.fit_transform(values)
    train, test = scaled[:split], scaled[split - lookback:]

    X_train, y_train = create_sequences(train, lookback)
    X_test, y_test = create_sequences(test, lookback)
    return X_train, y_train, X_test, y_test, scaler


def inverse_close(scaler, y, n_features):
    pad = np.zeros((len(y), n_features))
    pad[:, 0] = y
    return scaler.inverse_transform(pad)[:, 0]
