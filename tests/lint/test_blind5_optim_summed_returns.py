"""MLD032 across files (blind split 5's family): a training step returns its loss with the graph after the
backward, and a loop of another file adds the returned value to a running total. The finding lands on the
step's return, where the fix goes, as well as on the sum; quiet when either side turns the loss into a number."""



from .families import project_findings

RANKER = """
    class Ranker:
        def train(self, feed):
            scores = self.net(feed["x"])
            self.rank_loss = self.loss_fn(scores, feed["y"])
            self.update()
            return self.rank_loss, None, {"lr": self.lr}

        def update(self):
            self.optimizer.zero_grad()
            self.rank_loss.backward()
            self.optimizer.step()
"""

SCRIPT = """
    def run(model, batches, every):
        loss = 0.0
        for feed in batches:
            step_loss, _, summary = model.train(feed)
            loss += step_loss / every
        return loss
"""

STEPPER = """
    class Stepper:
        def fit_batch(self, batch):
            self.opt.zero_grad()
            out = self.model(batch["x"])
            loss = self.crit(out, batch["y"])
            loss.backward()
            self.opt.step()
            return loss
"""

LOOP = """
    def epoch(stepper, loader):
        running = 0
        for batch in loader:
            running += stepper.fit_batch(batch)
        return running / len(loader)
"""


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD032")


def test_step_state_on_self_returned_and_summed_by_a_script(tmp_path):
    assert ("ranker.py", 7) in _run(tmp_path, {"ranker.py": RANKER, "script.py": SCRIPT})


def test_step_returning_its_loss_summed_in_another_file(tmp_path):
    assert ("stepper.py", 9) in _run(tmp_path, {"stepper.py": STEPPER, "loop.py": LOOP})


def test_numbers_on_either_side_are_quiet(tmp_path):
    fixed = RANKER.replace("return self.rank_loss,", "return self.rank_loss.item(),")
    assert _run(tmp_path, {"ranker.py": fixed, "script.py": SCRIPT}) == []
    summed = SCRIPT.replace("loss += step_loss / every", "loss += step_loss.item() / every")
    assert _run(tmp_path, {"ranker.py": RANKER, "script.py": summed}) == []
    assert _run(tmp_path, {"stepper.py": STEPPER.replace("return loss", "return loss.detach()"), "loop.py": LOOP}) == []


def test_step_whose_result_no_file_sums_is_quiet(tmp_path):
    logged = LOOP.replace("running += stepper.fit_batch(batch)", "stepper.fit_batch(batch)")
    assert _run(tmp_path, {"stepper.py": STEPPER, "loop.py": logged}) == []


PAIR_STEP = """
    class PairStepper:
        def step(self, batch):
            logits = self.model(batch["x"])
            loss = self.crit(logits, batch["y"])
            acc = (logits.argmax(-1) == batch["y"]).float().mean().item()
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()
            return acc, loss
"""

PAIR_LOOP = """
    def epoch(stepper, loader):
        total_loss, total_acc = 0.0, 0.0
        for batch in loader:
            acc, loss = stepper.step(batch)
            total_acc += acc
            total_loss += loss
        return total_loss / len(loader), total_acc / len(loader)
"""


def test_the_summed_element_of_a_returned_tuple(tmp_path):
    assert ("pair_step.py", 10) in _run(tmp_path, {"pair_step.py": PAIR_STEP, "pair_loop.py": PAIR_LOOP})
    only_acc = PAIR_LOOP.replace("            total_loss += loss\n", "")
    # the step's number (acc) is what is summed: its return stays quiet
    assert [f for f in _run(tmp_path, {"pair_step.py": PAIR_STEP, "pair_loop.py": only_acc}) if f[0] == "pair_step.py"] == []
