from collections import defaultdict


class Events:
    STARTED = "started"
    EPOCH_STARTED = "epoch_started"
    ITERATION_COMPLETED = "iteration_completed"
    EPOCH_COMPLETED = "epoch_completed"
    COMPLETED = "completed"


class State:
    def __init__(self):
        self.epoch = 0
        self.iteration = 0
        self.output = None
        self.batch = None
        self.metrics = {}


class Engine:
    def __init__(self, process_function):
        self._process_function = process_function
        self._handlers = defaultdict(list)
        self.state = State()

    def add_event_handler(self, event, handler, *args):
        self._handlers[event].append((handler, args))

    def on(self, event):
        def deco(fn):
            self.add_event_handler(event, fn)
            return fn
        return deco

    def _fire(self, event):
        for handler, args in self._handlers[event]:
            handler(self, *args)

    def run(self, data, max_epochs=1):
        self._fire(Events.STARTED)
        for _ in range(max_epochs):
            self.state.epoch += 1
            self._fire(Events.EPOCH_STARTED)
            for batch in data:
                self.state.iteration += 1
                self.state.batch = batch
                self.state.output = self._process_function(self, batch)
                self._fire(Events.ITERATION_COMPLETED)
            self._fire(Events.EPOCH_COMPLETED)
        self._fire(Events.COMPLETED)
        return self.state
