import { Lease } from './lease.js';
import { OneTimeToken } from './one-time-token.js';

/** Every entity the ORM knows. Add new entities here. */
export const entities = [OneTimeToken, Lease];

export { Lease, OneTimeToken };
