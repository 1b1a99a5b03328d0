// The public report API, and nothing else: the dashboard shows what the API
// answers, with the read key as a Bearer token on every request.

/** A refusal or failure, with the API's status, code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  /** The key was refused: wrong, of the wrong kind, or rotated. */
  get isUnauthorized() {
    return this.status === 401;
  }
}

export class Api {
  constructor(key) {
    this.key = key;
  }

  /** GET a JSON answer. `parameters` become the query; empty ones are left out. */
  async json(path, parameters = {}) {
    const response = await this.request(path, parameters, 'application/json');
    return response.json();
  }

  /** GET the CSV of the same report (`format=csv`), as text. */
  async csv(path, parameters = {}) {
    const response = await this.request(path, { ...parameters, format: 'csv' }, 'text/csv');
    return response.text();
  }

  async request(path, parameters, accept) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(parameters)) {
      if (value !== null && value !== undefined && value !== '') query.set(name, value);
    }
    const text = query.toString();
    const address = text ? `${path}?${text}` : path;
    let response;
    try {
      response = await fetch(address, {
        headers: { Authorization: `Bearer ${this.key}`, Accept: accept },
        // Same origin only, and no cookies: the key is the only credential.
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (error) {
      throw new ApiError(0, 'network', `Uptake could not be reached (${error.message}).`);
    }
    if (response.ok) return response;
    let code = 'unknown';
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = await response.json();
      code = body.error.code;
      message = body.error.message;
    } catch {
      // Not the API's error body (a proxy's page, say): the status says enough.
    }
    throw new ApiError(response.status, code, message);
  }
}
