import { createMemoryBudgets } from '../../services/access/budgets.ts';
import { budgetContract } from './budget-contract.ts';

budgetContract('memory', async () => ({ budgets: createMemoryBudgets(), cleanup: async () => {} }));
