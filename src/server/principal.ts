import { DossierError } from '../errors/index.ts';
import { narrowScope } from '../store/scope.ts';
import type { Scope } from '../store/types.ts';
import type { Role, ServerState, User } from './state/index.ts';

/**
 * Who is calling, and what they may read and write. Every read the server does goes through
 * `readScope`: the collections the caller is a member of (any role), intersected with the ones the
 * request names; nothing else is ever ORed in. Admins (and the local user of a loopback server
 * without keys) see every collection.
 */
export class Principal {
  private readonly roles: Map<string, Role>;

  constructor(
    readonly user: User,
    memberships: Array<{ collection: string; role: Role }>,
  ) {
    this.roles = new Map(memberships.map((m) => [m.collection, m.role]));
  }

  static async of(state: ServerState, user: User): Promise<Principal> {
    return new Principal(user, await state.memberships(user.id));
  }

  get all(): boolean {
    return this.user.admin;
  }

  canRead(collection: string): boolean {
    return this.all || this.roles.has(collection);
  }

  canWrite(collection: string): boolean {
    const role = this.roles.get(collection);
    return this.all || role === 'writer' || role === 'owner';
  }

  canManage(collection: string): boolean {
    return this.all || this.roles.get(collection) === 'owner';
  }

  /**
   * The scope of a read: the named collections (each must be readable: one that is not is "not
   * found", whether or not it exists) or every readable one.
   */
  readScope(collections?: readonly string[]): Scope {
    return narrowScope({ collections: this.all ? '*' : [...this.roles.keys()] }, collections);
  }

  assertWrite(collection: string): void {
    if (this.canWrite(collection)) return;
    // A collection the caller cannot even read does not exist for them.
    if (!this.canRead(collection)) throw new DossierError('not-found', `no collection "${collection}"`);
    throw new DossierError('forbidden', `you are a reader of "${collection}"; writing needs the writer or owner role`);
  }
}
