import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, tokenFor, useInProcessLms } from './helpers.js';

const { lms } = useInProcessLms();
let other: Server;
let otherUrl = '';

beforeAll(async () => {
  // Stands for the service under test, listening on loopback beside the in-process LMS.
  other = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`real ${req.url}`));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

describe('in-process handlers', () => {
  it('answer the LMS origin only, letting other loopback requests through to real servers', async () => {
    expect((await api(lms, tokenFor(lms, 'instructor'), '/api/v1/courses')).status).toBe(200);
    // The same path on another loopback origin is not the LMS.
    const response = await fetch(`${otherUrl}/api/v1/courses`);
    expect(await response.text()).toBe('real /api/v1/courses');
  });

  it('fail loudly for an LMS request no handler knows', async () => {
    await expect(fetch(`${lms.baseUrl}/api/v1/users/self`)).rejects.toThrow();
  });

  it('fail for requests leaving the machine', async () => {
    await expect(fetch('http://lms.example.invalid/api/v1/courses')).rejects.toThrow();
  });
});
