import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/bip341-wallet.js';

testSuite(suite);
