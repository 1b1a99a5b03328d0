"""What the browser tests and tools/dashboard-timing share: a real uptaked
started on port 0, the report API through urllib, and headless Chromium
driven by Selenium (Debian's chromium, chromium-driver, python3-selenium).
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Daemon:
    """uptaked on a database of its own (or the one given), on a free port."""

    def __init__(self, binary, database=None, extra_arguments=()):
        self.directory = tempfile.mkdtemp(prefix="uptake-browser-")
        self.database = database or os.path.join(self.directory, "uptake.db")
        self.banner_path = os.path.join(self.directory, "banner")
        self.log_path = os.path.join(self.directory, "uptaked.log")
        with open(self.banner_path, "w") as banner, open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [binary, "--db", self.database, "--listen", "127.0.0.1:0", *extra_arguments],
                stdout=banner, stderr=log)
        self.url = None
        self.ingest_key = None
        self.read_key = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"uptaked exited: {self.log()}")
            with open(self.banner_path) as banner:
                lines = banner.read().splitlines()
            for line in lines:
                if line.startswith("listening on "):
                    self.url = line[len("listening on "):].strip()
                elif line.startswith("ingest key: "):
                    self.ingest_key = line[len("ingest key: "):].strip()
                elif line.startswith("read key: "):
                    self.read_key = line[len("read key: "):].strip()
            # A database that already has apps prints no keys: the URL is enough.
            if self.url and (self.read_key or database):
                self.wait_until_serving()
                return
            time.sleep(0.05)
        raise RuntimeError("uptaked printed no banner within 60 s")

    def wait_until_serving(self):
        for _ in range(200):
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("uptaked does not answer /healthz")

    def log(self):
        with open(self.log_path) as log:
            return log.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def request(self, path, key=None, body=None, headers=None):
        """(status, headers, body bytes) of one request; errors are answers too."""
        headers = dict(headers or {})
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def json(self, path, key=None):
        status, _, body = self.request(path, key=key or self.read_key)
        if status != 200:
            raise AssertionError(f"GET {path}: {status} {body[:300]!r}")
        return json.loads(body)

    def post_events(self, events, batch=1000):
        for start in range(0, len(events), batch):
            status, _, body = self.request(
                "/v1/events", key=self.ingest_key, body={"events": events[start:start + batch]})
            if status != 200:
                raise AssertionError(f"POST /v1/events: {status} {body[:300]!r}")


def chromium(window=(1280, 1000), download_directory=None):
    """Headless Chromium with the browser console and network logged."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in [
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US",
        f"--window-size={window[0]},{window[1]}",
        # No traffic of the browser's own (updates, safe browsing, fonts):
        # what the network log shows is the page's.
        "--disable-background-networking", "--disable-component-update",
        "--disable-default-apps", "--disable-sync", "--no-first-run",
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    if download_directory:
        options.add_experimental_option("prefs", {
            "download.default_directory": download_directory,
            "download.prompt_for_download": False,
        })
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    if download_directory:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {
            "behavior": "allow", "downloadPath": download_directory})
    return driver


def sign_in(driver, url, key, hash_part=""):
    """Opens the dashboard (at `hash_part`, if any) and signs in with `key`."""
    # A page of its own: from the dashboard, an address differing only
    # after '#' would not load the page again.
    driver.get("about:blank")
    driver.get(url + "/" + hash_part)
    field = wait_for(driver, lambda: visible(driver, "read-key"))
    field.clear()
    field.send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()


def visible(driver, element_id):
    element = driver.find_element(By.ID, element_id)
    return element if element.is_displayed() else None


def wait_for(driver, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
        except Exception:  # noqa: BLE001 - the page is still changing
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting on the page; at {driver.current_url}")


def wait_for_view(driver, seconds=30):
    """Waits until the view is drawn and complete; returns <main>'s dataset."""
    def settled():
        main = driver.find_element(By.ID, "main")
        state = main.get_attribute("data-state")
        if state in ("ready", "error") and main.get_attribute("data-complete-ms"):
            return {
                "state": state,
                "drawnMs": int(main.get_attribute("data-drawn-ms")),
                "completeMs": int(main.get_attribute("data-complete-ms")),
            }
        return None
    return wait_for(driver, settled, seconds)


def go(driver, hash_part):
    """Follows the dashboard to another view, as a click on a link would."""
    driver.execute_script("document.getElementById('main').removeAttribute('data-complete-ms');"
                          "location.hash = arguments[0];", hash_part.lstrip("#"))
    return wait_for_view(driver)
