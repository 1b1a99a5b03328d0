"""The dashboard in a real browser: headless Chromium, driven by Selenium,
against a real uptaked holding generated events. Every figure the page
shows is compared with what the API answers for the same range.

    /usr/bin/python3 Tests/Browser/dashboard_test.py   (tools/browser-tests runs it)

Environment: UPTAKED, UPTAKE (the binaries; default the debug builds),
SCREENSHOTS (where each view's screenshot goes; default
.build/browser-screenshots).
"""

import csv
import datetime
import decimal
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

UPTAKED = os.environ.get("UPTAKED", os.path.join(harness.REPOSITORY, ".build/debug/uptaked"))
UPTAKE = os.environ.get("UPTAKE", os.path.join(harness.REPOSITORY, ".build/debug/uptake"))
SCREENSHOTS = os.environ.get(
    "SCREENSHOTS", os.path.join(harness.REPOSITORY, ".build/browser-screenshots"))

CONFIGURED_UPDATE = "spring-2.1"
OTHER_UPDATE = "force-2.0"
TARGET = "2.1.0"
# Posted with the public ingest key, as anyone could: shown as text or not at all.
HOSTILE_APP_VERSION = "<img src=x onerror=window.p=1>"
HOSTILE_OS_VERSION = "<script>window.q=1</script>"
HOSTILE_INSTALL = '"><svg onload=window.r=1>'


def generated_events(today, seed=7):
    """A fortnight of prompts: impressions, downloads, upgrades to 2.1.0, and
    test events, over versions whose text order is not their version order."""
    generator = random.Random(seed)
    start = datetime.datetime.combine(
        today - datetime.timedelta(days=13), datetime.time(), datetime.timezone.utc)
    latest = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    events = []

    def event(install, update, action, version, at, **extra):
        at = min(at, latest)
        events.append({
            "id": f"e{len(events)}", "updateId": update, "action": action, "appVersion": version,
            "installId": install, "timestamp": at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
            "platform": "ios", "osVersion": generator.choice(["17.4", "17.10", "18.0"]), **extra})

    for number in range(240):
        install = f"install-{number:03d}"
        version = generator.choice(["1.9.0", "1.10.0", "2.0.0"])
        test = number % 12 == 0
        extra = {"test": True} if test else {}
        seen = start + datetime.timedelta(hours=generator.randrange(0, 13 * 24))
        update = CONFIGURED_UPDATE if number % 3 else OTHER_UPDATE
        event(install, update, "impression", version, seen, **extra)
        choice = generator.random()
        if choice < 0.5:
            downloaded = seen + datetime.timedelta(minutes=generator.randrange(1, 90))
            event(install, update, "download", version, downloaded, **extra)
            if generator.random() < 0.7:
                upgraded = downloaded + datetime.timedelta(hours=generator.randrange(1, 40))
                new_version = generator.choice([TARGET, TARGET, "2.1.0-beta.1"])
                event(install, update, "impression", new_version, upgraded, **extra)
        elif choice < 0.8:
            event(install, update, "later", version, seen + datetime.timedelta(minutes=1), **extra)
        else:
            event(install, update, "ignore", version, seen + datetime.timedelta(minutes=1), **extra)
    hostile_at = start + datetime.timedelta(days=3)
    events.append({
        "id": "hostile", "updateId": OTHER_UPDATE, "action": "impression",
        "appVersion": HOSTILE_APP_VERSION, "osVersion": HOSTILE_OS_VERSION,
        "installId": HOSTILE_INSTALL, "timestamp": hostile_at.strftime("%Y-%m-%dT%H:%M:%SZ")})
    return events


def digits(text):
    """The number a formatted figure stands for: "1,234" → 1234."""
    cleaned = re.sub(r"[^0-9.\-]", "", text)
    return float(cleaned) if "." in cleaned else int(cleaned)


def as_percent(fraction):
    """As the page formats a share: one decimal, halves away from zero, of
    the number's shortest decimal form (as Intl.NumberFormat rounds)."""
    if fraction is None:
        return "—"
    exact = decimal.Decimal(repr(fraction)) * 100
    return f"{exact.quantize(decimal.Decimal('0.1'), rounding=decimal.ROUND_HALF_UP)}%"


class DashboardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(SCREENSHOTS, exist_ok=True)
        cls.daemon = harness.Daemon(UPTAKED)
        try:
            cls.set_up_data()
        except BaseException:
            cls.daemon.stop()
            raise
        cls.downloads = tempfile.mkdtemp(prefix="uptake-downloads-")
        cls.driver = harness.chromium(download_directory=cls.downloads)

    @classmethod
    def set_up_data(cls):
        today = datetime.datetime.now(datetime.timezone.utc).date()
        cls.range = {"from": (today - datetime.timedelta(days=13)).isoformat(),
                     "to": today.isoformat(), "test": "exclude"}
        cls.daemon.post_events(generated_events(today))
        configuration = {"updates": [{
            "updateId": CONFIGURED_UPDATE, "platform": "ios", "latestVersion": TARGET,
            "storeUrl": "https://apps.apple.com/app/id1234567890", "option": "flexible",
            "rolloutPercent": 50,
            "texts": {"en": {"title": "New update", "description": "Version 2.1 is out.",
                             "updateNow": "Update", "remindMeLater": "Later", "ignore": "Ignore"}}}]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as document:
            json.dump(configuration, document)
        put = subprocess.run([UPTAKE, "updates", "put", "--app", "default", document.name,
                              "--db", cls.daemon.database], capture_output=True, text=True)
        os.unlink(document.name)
        if put.returncode != 0:
            raise AssertionError(f"uptake updates put: {put.stderr}")
        # "live in a running uptaked within a second"
        for _ in range(100):
            rows = cls.daemon.json("/v1/updates?" + cls.query())["updates"]
            if any(row.get("targetVersion") == TARGET for row in rows):
                break
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.daemon.stop()

    @classmethod
    def query(cls, **extra):
        return urllib.parse.urlencode({**cls.range, **extra})

    @classmethod
    def hash_of(cls, view, **extra):
        return f"#/{view}?" + cls.query(**extra)

    def setUp(self):
        self.driver.get(self.daemon.url + "/")
        self.driver.execute_script("sessionStorage.clear(); localStorage.clear();")
        # Signed out and off the page: the next load is a fresh one.
        self.driver.get("about:blank")
        self.driver.get_log("browser")
        self.driver.get_log("performance")

    def tearDown(self):
        # No test leaves an error in the console, or a request to another origin.
        problems = [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"
                    and not self.expected_console_error(entry)]
        self.assertEqual(problems, [], "the browser console has errors")
        self.assertEqual(self.foreign_requests(), [], "the page asked another origin")

    def expected_console_error(self, entry):
        # A refused key (401) or request (400) the test asked for, and the
        # page handled; Chromium logs every failed fetch.
        return getattr(self, "refusals_expected", False) and (
            "401" in entry["message"] or "400" in entry["message"])

    def foreign_requests(self):
        foreign = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] != "Network.requestWillBeSent":
                continue
            url = message["params"]["request"]["url"]
            if not (url.startswith(self.daemon.url + "/") or url.startswith("blob:" + self.daemon.url)
                    or url.startswith("data:")):
                foreign.append(url)
        return foreign

    def sign_in(self, hash_part=""):
        harness.sign_in(self.driver, self.daemon.url, self.daemon.read_key, hash_part)
        return harness.wait_for_view(self.driver)

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(SCREENSHOTS, f"{name}.png"))

    def cells(self, table, column):
        return [cell.text for cell in self.driver.find_elements(
            By.CSS_SELECTOR, f"table[data-table={table}] tbody [data-column={column}]")]

    # MARK: - Sign-in

    def test_a_wrong_key_is_refused_with_a_message(self):
        self.refusals_expected = True
        for key in ["upr_not-a-key", self.daemon.ingest_key]:
            harness.sign_in(self.driver, self.daemon.url, key)
            error = harness.wait_for(self.driver, lambda: harness.visible(self.driver, "sign-in-error"))
            self.assertIn("refused", error.text)
            self.assertFalse(self.driver.find_element(By.ID, "dashboard").is_displayed())
            self.assertIsNone(self.driver.execute_script("return sessionStorage.getItem('uptake.readKey')"))

    def test_the_key_stays_in_the_tab_and_sign_out_forgets_it(self):
        self.sign_in(self.hash_of("updates"))
        storage = self.driver.execute_script(
            "return [sessionStorage.getItem('uptake.readKey'), localStorage.length, document.cookie]")
        self.assertEqual(storage, [self.daemon.read_key, 0, ""])
        self.assertNotIn(self.daemon.read_key, self.driver.current_url)
        # Reloading the tab keeps the session; a bookmarked address has no key.
        self.driver.refresh()
        harness.wait_for_view(self.driver)
        self.assertTrue(self.driver.find_element(By.ID, "dashboard").is_displayed())
        self.driver.find_element(By.ID, "sign-out").click()
        harness.wait_for(self.driver, lambda: harness.visible(self.driver, "read-key"))
        self.assertIsNone(self.driver.execute_script("return sessionStorage.getItem('uptake.readKey')"))
        self.assertFalse(self.driver.find_element(By.ID, "dashboard").is_displayed())

    def test_a_bookmarked_view_opens_after_sign_in_with_its_range(self):
        address = self.hash_of("update/" + CONFIGURED_UPDATE, test="include")
        self.sign_in(address)
        self.assertEqual(self.driver.find_element(By.ID, "view-heading").text, f"Update {CONFIGURED_UPDATE}")
        self.assertEqual(self.driver.find_element(By.ID, "from").get_attribute("value"), self.range["from"])
        self.assertEqual(self.driver.find_element(By.ID, "test").get_attribute("value"), "include")

    # MARK: - Views against the API

    def test_updates_view_shows_the_apis_counts_rates_and_configuration(self):
        self.sign_in(self.hash_of("updates"))
        self.screenshot("updates")
        updates = self.daemon.json("/v1/updates?" + self.query())["updates"]
        self.assertEqual(self.cells("updates", "updateId"), [row["updateId"] for row in updates])
        for action in ["impression", "download", "later", "ignore"]:
            self.assertEqual([digits(text) for text in self.cells("updates", action)],
                             [row[action] for row in updates], action)
        for action in ["download", "later", "ignore"]:
            expected = [as_percent(self.daemon.json(
                f"/v1/updates/{row['updateId']}?" + self.query())[f"{action}Rate"]) for row in updates]
            self.assertEqual(self.cells("updates", f"{action}Rate"), expected, action)
        self.assertEqual(self.cells("updates", "targetVersion"),
                         [row["targetVersion"] or "—" for row in updates])
        self.assertEqual(self.cells("updates", "rolloutPercent"),
                         ["50%" if row["updateId"] == CONFIGURED_UPDATE else "—" for row in updates])
        # Each update id links to its view.
        self.driver.find_element(By.CSS_SELECTOR, f"a[data-update-id='{CONFIGURED_UPDATE}']").click()
        harness.wait_for_view(self.driver)
        self.assertEqual(self.driver.find_element(By.ID, "view-heading").text, f"Update {CONFIGURED_UPDATE}")

    def test_update_view_shows_the_apis_installs_and_funnel(self):
        for test in ["exclude", "include"]:
            if test == "exclude":
                self.sign_in(self.hash_of("update/" + CONFIGURED_UPDATE, test=test))
                self.screenshot("update")
            else:
                harness.go(self.driver, self.hash_of("update/" + CONFIGURED_UPDATE, test=test))
            query = self.query(test=test)
            update = self.daemon.json(f"/v1/updates/{CONFIGURED_UPDATE}?{query}")
            funnel = self.daemon.json(f"/v1/updates/{CONFIGURED_UPDATE}/funnel?{query}")
            for action in ["impression", "download", "later", "ignore"]:
                card = self.driver.find_element(By.CSS_SELECTOR, f"[data-action={action}]")
                figures = {element.get_attribute("data-figure"): element.text
                           for element in card.find_elements(By.CSS_SELECTOR, "[data-figure]")}
                self.assertEqual(digits(figures["installs"]), update["actions"][action]["installs"])
                self.assertEqual(digits(figures["events"]), update["actions"][action]["events"])
                if action != "impression":
                    self.assertEqual(figures["rate"], as_percent(update[f"{action}Rate"]))
            steps = {step.get_attribute("data-step"):
                     digits(step.find_element(By.CSS_SELECTOR, "[data-figure=installs]").text)
                     for step in self.driver.find_elements(By.CSS_SELECTOR, "[data-funnel=steps] li")}
            self.assertEqual(steps, {key: funnel[key] for key in ["impressions", "downloads", "upgraded"]})
            self.assertGreater(funnel["upgraded"], 0, "the data should have upgrades")
            kept = self.driver.find_element(By.CSS_SELECTOR, "[data-step=upgraded] [data-figure=kept]").text
            self.assertEqual(kept, as_percent(funnel["upgraded"] / funnel["downloads"]))
            median = self.driver.find_element(By.CSS_SELECTOR, "[data-figure=median-hours] strong").text
            self.assertEqual(median, f"{funnel['medianHoursToUpgrade']:.1f} h")
            # The funnel's bars carry the same figures.
            bars = self.driver.execute_script(
                "return Chart.getChart(document.querySelectorAll('#content canvas')[0]).data.datasets[0].data")
            self.assertEqual(bars, [funnel["impressions"], funnel["downloads"], funnel["upgraded"]])
            days = self.driver.execute_script(
                "const chart = Chart.getChart(document.querySelectorAll('#content canvas')[1]);"
                "return [chart.data.labels, chart.data.datasets.map(d => d.data)]")
            by_date = {day["date"]: day for day in update["days"]}
            for index, action in enumerate(["impression", "download", "later", "ignore"]):
                self.assertEqual(days[1][index], [by_date.get(date, {}).get(action, 0) for date in days[0]])
            facts = [element.text for element in self.driver.find_elements(
                By.CSS_SELECTOR, "[data-facts=configuration] dd")]
            self.assertEqual(facts, ["ios", TARGET, "flexible", "50%"])

    def test_adoption_view_stacks_the_apis_shares_in_version_order(self):
        self.sign_in(self.hash_of("adoption"))
        self.screenshot("adoption")
        adoption = self.daemon.json("/v1/adoption?" + self.query())
        chart = self.driver.execute_script(
            "const chart = Chart.getChart(document.querySelector('#content canvas'));"
            "return [chart.data.labels, chart.data.datasets.map(d => [d.label, d.data])]")
        labels, datasets = chart
        # Version order, not text order: 1.9.0 below 1.10.0, the beta below 2.1.0.
        versions = [label.split(" — ")[0] for label, _ in datasets]
        self.assertEqual(versions, adoption["versions"])
        self.assertLess(versions.index("1.9.0"), versions.index("1.10.0"))
        self.assertLess(versions.index("2.1.0-beta.1"), versions.index(TARGET))
        target_label = next(label for label, _ in datasets if label.split(" — ")[0] == TARGET)
        self.assertIn(f"target of {CONFIGURED_UPDATE}", target_label)
        for label, data in datasets:
            version = label.split(" — ")[0]
            expected = {row["date"]: row["share"] for row in adoption["rows"] if row["appVersion"] == version}
            self.assertEqual(dict(zip(labels, data)), {date: expected.get(date, 0) for date in labels})

    def test_many_versions_are_drawn_in_bands_of_neighbours(self):
        """90 days of 30 weekly-ish versions, none above a fifth of a day but
        the target: at most nine bands, every version once, in order."""
        self.sign_in(self.hash_of("adoption"))
        drawn = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import('/dashboard/view-adoption.js').then((adoption) => {
              const versions = Array.from({length: 30}, (_, index) => `3.${index}.0`);
              const peaks = new Map(versions.map((version) => [version, 0.12]));
              peaks.set('3.4.0', 0.6);
              const targets = new Map([['3.20.0', ['summer']]]);
              const few = versions.slice(0, 5);
              done({
                many: adoption.bands(versions, peaks, targets),
                few: adoption.bands(few, peaks, new Map()),
                label: adoption.bandLabel(['3.5.0', '3.6.0', '3.7.0'], targets),
                max: adoption.maxBands,
              });
            }, (error) => done({error: String(error)}));""")
        self.assertNotIn("error", drawn)
        versions = [f"3.{index}.0" for index in range(30)]
        many = drawn["many"]
        self.assertLessEqual(len(many), drawn["max"])
        self.assertGreaterEqual(len(many), drawn["max"] - 1, "the limit is used")
        self.assertEqual([version for band in many for version in band], versions)
        self.assertIn(["3.20.0"], many, "the target has a band of its own")
        self.assertIn(["3.4.0"], many, "a version that took 60% of a day has its own")
        sizes = [len(band) for band in many if band not in (["3.20.0"], ["3.4.0"])]
        self.assertLessEqual(max(sizes) - min(sizes), 2, f"bands as even as can be: {many}")
        self.assertEqual(drawn["few"], [[version] for version in versions[:5]])
        self.assertEqual(drawn["label"], "3.5.0 to 3.7.0 (3 versions)")

    def test_explore_shows_the_report_and_downloads_the_same_csv(self):
        self.sign_in(self.hash_of("explore", groupBy="date,appVersion", granularity="day"))
        self.screenshot("explore")
        report = self.daemon.json("/v1/report?" + self.query(groupBy="date,appVersion", granularity="day"))
        self.assertEqual(self.cells("report", "date"), [row["date"] for row in report["rows"]])
        self.assertEqual(self.cells("report", "appVersion"), [row["appVersion"] for row in report["rows"]])
        self.assertEqual([digits(text) for text in self.cells("report", "installs")],
                         [row["installs"] for row in report["rows"]])
        # The form changes the grouping and the address.
        select = self.driver.find_element(By.ID, "group-key-1")
        select.send_keys("Action")
        self.driver.find_element(By.CSS_SELECTOR, ".explore-controls button[type=submit]").click()
        harness.wait_for(self.driver, lambda: "groupBy=date%2Caction" in self.driver.current_url)
        harness.wait_for_view(self.driver)
        self.driver.find_element(By.ID, "download-csv").click()
        path = harness.wait_for(self.driver, lambda: next(
            (os.path.join(self.downloads, name) for name in os.listdir(self.downloads)
             if name.endswith(".csv")), None))
        time.sleep(0.3)
        status, _, expected = self.daemon.request(
            "/v1/report?" + self.query(groupBy="date,action", granularity="day", format="csv"),
            key=self.daemon.read_key)
        self.assertEqual(status, 200)
        with open(path, "rb") as downloaded:
            self.assertEqual(downloaded.read(), expected)
        self.assertGreater(len(list(csv.reader(io.StringIO(expected.decode())))), 2)
        os.unlink(path)

    # MARK: - Hostile data, headers, accessibility

    def test_hostile_text_is_shown_as_text(self):
        self.sign_in(self.hash_of("explore", groupBy="appVersion,osVersion"))
        self.assertIn(HOSTILE_APP_VERSION, self.cells("report", "appVersion"))
        self.assertIn(HOSTILE_OS_VERSION, self.cells("report", "osVersion"))
        harness.go(self.driver, self.hash_of("adoption"))
        self.driver.find_element(By.CSS_SELECTOR, "details summary").click()
        harness.wait_for(self.driver, lambda: HOSTILE_APP_VERSION in self.cells("adoption", "appVersion"))
        ran = self.driver.execute_script(
            "return [window.p, window.q, window.r, document.querySelectorAll('#content img, #content script, #content svg').length]")
        self.assertEqual(ran, [None, None, None, 0])

    def test_the_page_is_served_with_strict_headers(self):
        status, headers, body = self.daemon.request("/")
        self.assertEqual(status, 200)
        headers = {name.lower(): value for name, value in headers.items()}
        policy = headers["content-security-policy"]
        for directive in ["default-src 'none'", "script-src 'self'", "connect-src 'self'"]:
            self.assertIn(directive, policy)
        self.assertNotIn("unsafe-inline", policy)
        self.assertEqual(headers["x-content-type-options"], "nosniff")
        self.assertEqual(headers["referrer-policy"], "no-referrer")
        self.assertNotIn(b"<script>", body, "no inline script")

    def test_every_control_has_a_label_and_keyboard_alone_works(self):
        self.driver.get(self.daemon.url + "/" + self.hash_of("explore"))
        field = harness.wait_for(self.driver, lambda: harness.visible(self.driver, "read-key"))
        self.assertEqual(self.driver.switch_to.active_element, field, "the key field has focus")
        field.send_keys(self.daemon.read_key + Keys.ENTER)
        harness.wait_for_view(self.driver)
        unlabelled = self.driver.execute_script("""
            return [...document.querySelectorAll('input, select, button, a[href]')]
              .filter(element => element.offsetParent !== null)
              .filter(element => !(element.labels && element.labels.length) &&
                                 !element.getAttribute('aria-label') && !element.textContent.trim())
              .map(element => element.outerHTML)""")
        self.assertEqual(unlabelled, [])
        # Tab from the page's start to the Adoption link and follow it.
        body = self.driver.find_element(By.TAG_NAME, "body")
        body.click()
        for _ in range(40):
            active = self.driver.switch_to.active_element
            if active.get_attribute("data-view") == "adoption":
                break
            active.send_keys(Keys.TAB)
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("data-view"), "adoption")
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        harness.wait_for(self.driver, lambda: "#/adoption" in self.driver.current_url)
        harness.wait_for_view(self.driver)
        self.assertEqual(self.driver.find_element(By.ID, "view-heading").text, "Adoption")

    def test_a_phones_width_has_no_sideways_scrolling(self):
        self.driver.set_window_size(390, 844)
        try:
            for view in ["updates", "update/" + CONFIGURED_UPDATE, "adoption", "explore"]:
                if view == "updates":
                    self.sign_in(self.hash_of(view))
                else:
                    harness.go(self.driver, self.hash_of(view))
                overflow = self.driver.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                self.assertLessEqual(overflow, 0, view)
                self.screenshot("phone-" + view.split("/")[0])
        finally:
            self.driver.set_window_size(1280, 1000)

    def test_a_refused_request_shows_the_apis_message(self):
        # An update id the API refuses (a space is not allowed in one): the
        # view says why instead of staying blank.
        self.refusals_expected = True
        state = self.sign_in("#/update/not%20valid?" + self.query())
        self.assertEqual(state["state"], "error")
        notice = self.driver.find_element(By.CSS_SELECTOR, "[data-notice=error]")
        self.assertIn("updateId", notice.text)
        self.assertTrue(self.driver.find_element(By.ID, "views").is_displayed(), "still signed in")

    def test_an_empty_range_says_so(self):
        self.sign_in(f"#/updates?from=2001-01-01&to=2001-01-31&test=exclude")
        notice = self.driver.find_element(By.CSS_SELECTOR, "[data-notice=empty]")
        self.assertIn("No events in this range", notice.text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
